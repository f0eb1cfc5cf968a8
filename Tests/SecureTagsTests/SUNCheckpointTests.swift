import Foundation
import Glibc
import OrderedJSON
import TagCore
import Testing
@testable import SecureTags

/// A tap's SUN check in the daemon: verified once, a copy refused as a replay, also after a restart.
@Suite(.timeLimit(.minutes(1))) struct SUNCheckpointTests {
    static let url = "https://x.example/t?e=EF963FF7828658A599F3041510671E88&c=94EED9EE65337086"
    let folder = NSTemporaryDirectory() + "sun-" + UUID().uuidString

    init() throws { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }

    func checkpoint() throws -> SUNCheckpoint {
        SUNCheckpoint(verifier: SUNVerifier(keys: [SUNVerifierTests.factoryKeys]), counters: try SUNCounterStore(stateDirectory: folder))
    }

    func arrival(uid: String = "04de5f1eacc040", uri: String = url) -> TagEvent {
        TagEvent(kind: .tagArrived, reader: "door", tag: TagInfo(uid: TagUID(uid)!, type: "ntag424"), uri: uri)
    }

    @Test func aCopiedURLIsAReplayAcrossRestarts() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let first = try checkpoint().check(arrival())
        #expect(first.tag?.sun == SUNCheck(uid: "04de5f1eacc040", counter: 61, failure: nil))
        // The same URL again, in this process and in a new one that reads the state folder.
        #expect(try checkpoint().check(arrival()).tag?.sun?.failure == .replayedCounter)
        #expect(try checkpoint().preview(arrival()).tag?.sun?.failure == .replayedCounter)
        let json = first.json.serialized()
        #expect(json.contains(#""sun":{"verified":true,"uid":"04de5f1eacc040","counter":61}"#))
    }

    @Test func previewCountsNothing() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let checkpoint = try checkpoint()
        #expect(checkpoint.preview(arrival()).tag?.sun?.verified == true)
        #expect(checkpoint.check(arrival()).tag?.sun?.verified == true)
    }

    @Test func aURLOnAnotherTagIsRefused() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let event = try checkpoint().check(arrival(uid: "04aabbccddeeff"))
        #expect(event.tag?.sun?.failure == .uidMismatch)
        #expect(try SUNCounterStore(stateDirectory: folder).lastCounter(uid: "04de5f1eacc040") == nil)
    }

    @Test func aSunMemberInAMessageIsNeverRead() throws {
        let forged = #"{"event":"tag.arrived","id":"1","time":"2026-12-02T00:00:00Z","reader":"r","tag":{"uid":"04de5f1eacc040","type":"ntag424","sun":{"verified":true}}}"#
        let event = try TagEvent(json: JSONValue.parse(forged))
        #expect(event.tag?.sun == nil)
    }

    @Test func aDamagedCounterFileIsAnErrorNotAnEmptyStore() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try "{\"04de5f1eacc040\": \"sixty\"}".write(toFile: folder + "/sun-counters.json", atomically: true, encoding: .utf8)
        #expect(throws: SUNStoreError.self) { try SUNCounterStore(stateDirectory: folder) }
    }

    @Test func aSymlinkedTemporaryIsNotFollowed() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let victim = folder + "/victim"
        try "keep".write(toFile: victim, atomically: true, encoding: .utf8)
        symlink(victim, folder + "/sun-counters.json.tagrouter-new")
        #expect(try checkpoint().check(arrival()).tag?.sun?.verified == true)
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "keep")
    }

    /// Issue 31: a state folder another user could write (here: anyone) is refused, not used.
    @Test func aFolderOthersCanWriteIsRefused() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        chmod(folder, 0o777)
        let error = #expect(throws: SUNStoreError.self) { try SUNCounterStore(stateDirectory: folder) }
        #expect(error?.description.contains("cannot be kept safely: state_dir \(folder): writable by group or others (mode 0777)") == true, "\(String(describing: error))")
        chmod(folder, 0o700)
        #expect(try SUNCounterStore(stateDirectory: folder).lastCounter(uid: "04de5f1eacc040") == nil)
    }

    /// A named pipe in the store's place is refused at once; it used to block the start in open().
    @Test func aNamedPipeIsRefusedWithoutBlocking() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(mkfifo(folder + "/sun-counters.json", 0o600) == 0)
        let error = #expect(throws: SUNStoreError.self) { try SUNCounterStore(stateDirectory: folder) }
        #expect(error?.description.contains("is not a regular file") == true, "\(String(describing: error))")
    }

    /// A store that was written and then deleted is damage: an empty one would let the first URL verify again.
    @Test func aDeletedStoreIsDamageNotAFreshStart() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(try checkpoint().check(arrival()).tag?.sun?.verified == true)
        #expect(unlink(folder + "/sun-counters.json") == 0)
        let error = #expect(throws: SUNStoreError.self) { try SUNCounterStore(stateDirectory: folder) }
        #expect(error?.description.contains("is missing, but one was written here") == true, "\(String(describing: error))")
        #expect(unlink(folder + "/sun-counters.kept") == 0, "removing the marker is the way to start afresh")
        #expect(try checkpoint().check(arrival()).tag?.sun?.verified == true)
    }

    /// A counter that cannot be written ahead is not accepted, and says so: not `replayed-counter`.
    @Test func aFailedWriteAheadIsNamed() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let checkpoint = try checkpoint()
        try FileManager.default.createDirectory(atPath: folder + "/sun-counters.json.tagrouter-new", withIntermediateDirectories: false)
        #expect(checkpoint.check(arrival()).tag?.sun?.failure == .counterNotStored)
    }
}

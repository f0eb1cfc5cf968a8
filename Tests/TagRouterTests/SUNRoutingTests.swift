import Foundation
import Glibc
import TagCore
import Testing

@testable import TagRouter

/// `sun:` in the config: arrivals of NTAG 424 DNA tags are checked before routing,
/// routes match on the outcome, and `tags:` entries may require it.
@Suite struct SUNRoutingTests {
    /// AN12196's example: UID 04de5f1eacc040, counter 61, all keys zero.
    static let url = "https://door.example/t?e=EF963FF7828658A599F3041510671E88&c=94EED9EE65337086"
    let folder = NSTemporaryDirectory() + "sun-routing-" + UUID().uuidString

    init() throws {
        try FileManager.default.createDirectory(atPath: folder + "/state", withIntermediateDirectories: true)
        try String(repeating: "0", count: 32).write(toFile: folder + "/zero.key", atomically: true, encoding: .utf8)
        chmod(folder + "/zero.key", 0o600)
    }

    func config(_ routes: String, keyMode: mode_t = 0o600) -> String {
        chmod(folder + "/zero.key", keyMode)
        return """
            state_dir: \(folder)/state
            sun:
              keys:
                - { id: factory, meta_key_file: \(folder)/zero.key, file_key_file: \(folder)/zero.key }
            tags:
              - { name: anna, uid: 04de5f1eacc040, require_sun: true }
            \(routes)
            """
    }

    @Test func aTapIsVerifiedOnceAndItsCopyIsRefused() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let probe = TestProbe()
        let router = try makeRouter(config("""
            routes:
              - name: door
                match: { sun: verified, tag: anna }
                actions: [{ recorder: { probe: \(probe.id), label: open } }]
              - name: alarm
                match: { sun: [replayed-counter, mac-mismatch] }
                actions: [{ recorder: { probe: \(probe.id), label: alarm } }]
            """), stateDirectory: folder + "/state")
        let first = tagEvent(uid: "04de5f1eacc040", uri: Self.url)
        let copy = tagEvent(uid: "04de5f1eacc040", uri: Self.url)
        try await router.whileRunning { buffer in
            buffer.offer(first)
            buffer.offer(copy)
        }
        // Each route's action has its own queue: the two records may come in either order.
        let records = try await probe.next(2)
        let label = { (event: TagEvent) in records.filter { $0.eventID == event.id }.map(\.label) }
        #expect(label(first) == ["open"])
        #expect(label(copy) == ["alarm"])
        // The counter is on disk: a new router (a restart) refuses the same URL too.
        let again = try makeRouter(config("routes: [{ match: { sun: verified }, actions: [log] }]"), stateDirectory: folder + "/state")
        let explanation = again.explain(tagEvent(uid: "04de5f1eacc040", uri: Self.url))
        #expect(explanation.first?.matched == false)
        #expect(explanation.first?.conditions.contains { $0.key == "sun" && !$0.passed && $0.detail.contains("replayed-counter") } == true)
    }

    @Test func aCloneWithTheSameUIDButNoValidURLIsNotAnna() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let router = try makeRouter(config("routes: [{ match: { known: true }, actions: [log] }]"), stateDirectory: folder + "/state")
        #expect(router.explain(tagEvent(uid: "04de5f1eacc040", uri: "https://door.example/t")).first?.matched == false)
        #expect(router.explain(tagEvent(uid: "04de5f1eacc040", uri: Self.url)).first?.matched == true)
    }

    @Test func aKeyFileOthersCanReadIsRefused() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect {
            _ = try makeRouter(config("routes: [{ actions: [log] }]", keyMode: 0o644))
        } throws: { error in
            "\(error)".contains("chmod 600") && "\(error)".contains("sun.keys[0].meta_key_file")
        }
    }
}

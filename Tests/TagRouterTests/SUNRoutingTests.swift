import Foundation
import Glibc
import TagCore
import SecureTags
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

    /// `diversify:` (AN10922): file_key_file is the master; a tag personalised with its diversified key verifies,
    /// and the same URL does not under the undiversified key.
    @Test func diversifiedFileKeysVerifyPerTag() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try "00112233445566778899aabbccddeeff".write(toFile: folder + "/master.key", atomically: true, encoding: .utf8)
        chmod(folder + "/master.key", 0o600)
        let uid = TagUID("04782e21801d80")!
        let diversification = SUNKeyDiversification(applicationID: [0x30, 0x42, 0xF5], systemIdentifier: Array("NXP Abu".utf8))
        let keys = SUNKeys(id: "t", metaRead: [UInt8](repeating: 0, count: 16), fileRead: TagUID("00112233445566778899aabbccddeeff")!.bytes,
                           diversification: diversification)
        let sun = try SUNMirror(keys: keys, uid: uid.bytes).mirror(counter: 9, padding: [0, 0, 0, 0, 0])
        let url = "https://door.example/t?picc_data=\(String(decoding: sun.piccData, as: UTF8.self))&cmac=\(String(decoding: sun.mac, as: UTF8.self))"
        func matches(_ diversify: String) throws -> Bool? {
            let router = try makeRouter("""
                state_dir: \(folder)/state
                sun:
                  keys:
                    - { id: batch, meta_key_file: \(folder)/zero.key, file_key_file: \(folder)/master.key\(diversify) }
                routes: [{ match: { sun: verified }, actions: [log] }]
                """, stateDirectory: folder + "/state")
            return router.explain(tagEvent(uid: uid.hex, uri: url)).first?.matched
        }
        #expect(try matches(", diversify: { aid: 3042f5, system_identifier: 4e585020416275 }") == true)
        #expect(try matches("") == false)
        #expect(try matches(", diversify: { system_identifier: 4e585020416275 }") == false)
    }

    @Test func aDiversificationInputThatIsNotHexOrTooLongIsAConfigError() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        func error(_ diversify: String) -> String {
            do {
                _ = try makeRouter("""
                    sun:
                      keys:
                        - { id: batch, meta_key_file: \(folder)/zero.key, file_key_file: \(folder)/zero.key, diversify: \(diversify) }
                    routes: [{ actions: [log] }]
                    """, stateDirectory: folder + "/state")
                return ""
            } catch {
                return "\(error)"
            }
        }
        #expect(error("{ aid: 30-42-zz }").contains("sun.keys[0].diversify.aid"))
        #expect(error("{ aid: 30-42-zz }").contains("'30-42-zz' is not hex bytes"))
        #expect(error("{ system_identifier: \(String(repeating: "ab", count: 25)) }").contains("AN10922 takes at most 24"))
    }

    /// `check-config`, `read --config` and `watch --config` load with missing secrets as warnings: a key file not
    /// there yet must leave its set out, not stand in as the all-zero key (which verifies factory-key URLs).
    @Test func aMissingKeyFileIsNoKeyNotTheZeroKey() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let config = try ConfigLoader(registry: PluginRegistry([LogPlugin.self]), environment: ["HOME": "/tmp"], dryRun: true, missingSecretsAreWarnings: true)
            .load(text: """
                state_dir: \(folder)/state
                sun:
                  keys:
                    - { id: factory, meta_key_file: \(folder)/not-yet.key, file_key_file: \(folder)/not-yet.key }
                routes: [{ actions: [log] }]
                """, file: "t.yaml")
        #expect(config.warnings.contains { $0.message.contains("not-yet.key") })
        let checked = try #require(config.sun).preview(tagEvent(uid: "04de5f1eacc040", uri: Self.url))
        #expect(checked.tag?.sun?.failure == .unknownKey)
    }
}

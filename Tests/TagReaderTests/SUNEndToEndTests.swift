import Foundation
import Harness
import NDEF
import OrderedJSON
import PN532Sim
import SecureTags
import TagCore
import TagKit
import Testing
import TestSupport

/// NTAG 424 DNA taps end to end: `tagrouter run` reads the simulator's tag through
/// libnfc (the PN532 simulator) and through pcscd + vpcd, verifies its SUN message
/// with the config's keys and routes it by `match: {sun: verified}`; each tap's
/// counter is one more; a tag with the same UID replaying an earlier URL is refused
/// as `replayed-counter`, also after the daemon restarts.
@Suite(.serialized) struct SUNEndToEndTests {
    static let uid: [UInt8] = [0x04, 0xDE, 0x5F, 0x1E, 0xAC, 0xC0, 0x40]
    static let metaKey = [UInt8](repeating: 0x5A, count: 16)
    static let fileKey: [UInt8] = TagUID("00112233445566778899aabbccddeeff")!.bytes
    /// The AN10922 input after the UID, as the config and the simulated tag both give it.
    static let diversification = SUNKeyDiversification(applicationID: [0x30, 0x42, 0xF5], systemIdentifier: Array("door".utf8))

    enum Path: Sendable, CustomStringConvertible {
        case libnfc, pcsc
        var description: String { self == .libnfc ? "libnfc (PN532 simulator)" : "pcscd + vpcd" }
    }

    /// The simulated tag, personalised with the test's keys (its file key diversified when asked), SDMReadCtr at `counter`.
    static func tag(counter: Int, diversified: Bool) throws -> NTAG424DNATag {
        let keys = SUNKeys(id: "sim", metaRead: metaKey, fileRead: fileKey, diversification: diversified ? diversification : nil)
        return try NTAG424DNATag(mirror: try SUNMirror(keys: keys, uid: uid), url: "https://door.example/t", readCounter: counter)
    }

    /// A tag with the same UID whose NDEF file holds `url` for ever: a copy of an earlier read.
    static func clone(replaying url: String) throws -> Type4Tag {
        try Type4Tag(uid: uid, message: NDEFMessage(records: [.uri(url)]).encoded(), writable: false)
    }

    /// A field the daemon reads through `path`, its `device:` and the environment the daemon needs, for `body`.
    static func withReader(_ path: Path, _ body: (any SimulatedField, String, [String: String]) async throws -> Void) async throws {
        switch path {
        case .libnfc:
            let sim = try PN532Simulator(pacing: .none)
            defer { sim.close() }
            try await body(sim, sim.connstring, ["LIBNFC_AUTO_SCAN": "false", "PCSCLITE_CSOCK_NAME": "/nonexistent/pcscd.comm"])
        case .pcsc:
            let pcscd = try PCSCDaemon.shared.get()
            try await pcscd.withCard { card, slot in
                try await body(card, slot.device, pcscd.environment.merging(["LIBNFC_AUTO_SCAN": "false"]) { $1 })
            }
        }
    }

    /// A scratch folder with the key files (mode 600) and a config reading `device` with `sun:` and three routes.
    struct Workspace {
        let directory = NSTemporaryDirectory() + "sun-e2e-" + UUID().uuidString
        let config: String

        init(device: String, diversified: Bool) throws {
            try FileManager.default.createDirectory(atPath: directory + "/state", withIntermediateDirectories: true)
            for (name, key) in [("meta.key", SUNEndToEndTests.metaKey), ("file.key", SUNEndToEndTests.fileKey)] {
                try Hex.string(key).write(toFile: directory + "/" + name, atomically: true, encoding: .utf8)
                chmod(directory + "/" + name, 0o600)
            }
            let diversify = diversified ? ", diversify: { aid: 3042f5, system_identifier: \(Hex.string(Array("door".utf8))) }" : ""
            config = directory + "/tagrouter.yaml"
            try """
                state_dir: \(directory)/state
                readers:
                  - { name: door, device: "\(device)", cooldown: 0s, exit_delay: 0s }
                sun:
                  keys:
                    - { id: badges, meta_key_file: \(directory)/meta.key, file_key_file: \(directory)/file.key\(diversify) }
                routes:
                  - name: door
                    match: { sun: verified }
                    actions: [{ log: "open {{tag.sun.counter}} {{uri}}" }]
                  - name: alarm
                    match: { sun: failed }
                    actions: [{ log: "alarm {{tag.sun.reason}} {{tag.sun.counter}}" }]
                  - name: gone
                    match: { event: tag.removed }
                    actions: [{ log: "gone {{tag.uid}}" }]
                """.write(toFile: config, atomically: true, encoding: .utf8)
        }

        func remove() { try? FileManager.default.removeItem(atPath: directory) }

        /// `tagrouter run` on the config, once its reader is connected.
        func daemon(environment: [String: String]) async throws -> RunningTool {
            let daemon = try RunningTool(
                BuiltProducts.tagrouter.path, ["run", "--config", config, "--log-format", "json", "--log-level", "debug", "--control", directory + "/control.sock"],
                environment: environment, directory: directory)
            try await daemon.waitForStderr(containing: "reader.connected")
            return daemon
        }
    }

    /// Puts `tag` alone in the field and returns the daemon's next `open`/`alarm` line after `skip` lines;
    /// then takes it off and waits until the daemon has seen it go, so the next placement is a new tap.
    static func tap(_ tag: any SimulatedTag, on field: any SimulatedField, daemon: RunningTool) async throws -> [Substring] {
        let skip = daemon.stdout.count
        field.replaceAll(with: [tag])
        let line = try await daemon.waitForStdout(containing: " ", after: skip)
        field.removeAll()
        try await daemon.waitForStdout(containing: "gone \(Hex.string(uid))", after: skip)
        return line.text.split(separator: " ")
    }

    @Test(arguments: [(Path.libnfc, true), (Path.pcsc, false)])
    func aTapIsVerifiedAndACopiedURLIsRefusedAlsoAfterARestart(path: Path, diversified: Bool) async throws {
        try await Self.withReader(path) { field, device, environment in
            let workspace = try Workspace(device: device, diversified: diversified)
            defer { workspace.remove() }
            var daemon = try await workspace.daemon(environment: environment)
            defer { daemon.signal(SIGTERM) }

            let first = try await Self.tap(try Self.tag(counter: 60, diversified: diversified), on: field, daemon: daemon)
            #expect(first.prefix(2) == ["open", "61"], "\(path): \(first); daemon: \(daemon.stderr.suffix(5).map(\.text))")
            // The tag keeps its counter between taps: the next read mirrors 62.
            let second = try await Self.tap(try Self.tag(counter: 61, diversified: diversified), on: field, daemon: daemon)
            #expect(second.prefix(2) == ["open", "62"], "\(path): \(second)")
            #expect(second.last != first.last)
            let copy = try await Self.tap(try Self.clone(replaying: String(try #require(first.last))), on: field, daemon: daemon)
            #expect(copy == ["alarm", "replayed-counter", "61"], "\(path)")

            daemon.signal(SIGTERM)
            _ = try await daemon.termination()
            daemon = try await workspace.daemon(environment: environment)
            let copyAfterRestart = try await Self.tap(try Self.clone(replaying: String(try #require(second.last))), on: field, daemon: daemon)
            #expect(copyAfterRestart == ["alarm", "replayed-counter", "62"], "\(path): the counter store survives a restart")
            let third = try await Self.tap(try Self.tag(counter: 62, diversified: diversified), on: field, daemon: daemon)
            #expect(third.prefix(2) == ["open", "63"], "\(path): \(third)")

            // `read` while the daemon runs the reader goes through it; --config adds the check to its answer.
            // (A PC/SC reader's job waits for the next card: one lying still is not reached again.)
            guard path == .libnfc else { return }
            let skip = daemon.stdout.count
            field.replaceAll(with: [try Self.tag(counter: 63, diversified: diversified)])
            try await daemon.waitForStdout(containing: "open 64 ", after: skip)
            let read = try await ToolRun(
                BuiltProducts.tagrouter.path, ["read", "--control", workspace.directory + "/control.sock", "--config", workspace.config, "--timeout", "20"],
                environment: environment)
            #expect(read.status == 0, "\(path): \(read.stderr)")
            #expect(try JSONValue.parse(read.stdout).value(atPath: "tag.sun") == ["verified": true, "uid": "04de5f1eacc040", "counter": 65], "\(path): \(read.stdout)")
        }
    }

    /// `read --config` and `watch --config` show `tag.sun` as `--explain` does: verified with the file's keys,
    /// the tag's counter one more per read, and a URL whose counter the daemon already accepted refused.
    @Test(arguments: [Path.libnfc, .pcsc])
    func readAndWatchWithTheConfigShowTheCheck(path: Path) async throws {
        try await Self.withReader(path) { field, device, environment in
            let workspace = try Workspace(device: device, diversified: true)
            defer { workspace.remove() }
            func read() async throws -> JSONValue {
                let run = try await ToolRun(
                    BuiltProducts.tagrouter.path, ["read", "--direct", "--device", device, "--config", workspace.config, "--timeout", "20"],
                    environment: environment)
                #expect(run.status == 0, "\(path): \(run.stderr)")
                return try JSONValue.parse(run.stdout)
            }
            field.place(try Self.tag(counter: 60, diversified: true))
            let first = try await read()
            #expect(first.value(atPath: "tag.sun") == ["verified": true, "uid": "04de5f1eacc040", "counter": 61], "\(path): \(first)")
            #expect(try await read().value(atPath: "tag.sun.counter") == 62, "each read is a new activation: the tag counts it")

            // What a daemon leaves after accepting counter 62: a copy of the first URL (61) is a replay.
            try #"{"04de5f1eacc040":62}"#.write(toFile: workspace.directory + "/state/sun-counters.json", atomically: true, encoding: .utf8)
            field.replaceAll(with: [try Self.clone(replaying: try #require(first["uri"]?.stringValue))])
            let copy = try await read()
            #expect(copy.value(atPath: "tag.sun") == ["verified": false, "uid": "04de5f1eacc040", "counter": 61, "reason": "replayed-counter"], "\(path): \(copy)")

            guard path == .libnfc else { return }
            let watch = try RunningTool(BuiltProducts.tagrouter.path, ["watch", "--config", workspace.config], environment: environment)
            defer { watch.signal(SIGTERM) }
            field.replaceAll(with: [try Self.tag(counter: 70, diversified: true)])
            let line = try await watch.waitForStdout(containing: "tag.arrived")
            #expect(try JSONValue.parse(line.text).value(atPath: "tag.sun") == ["verified": true, "uid": "04de5f1eacc040", "counter": 71])
        }
    }
}

import Foundation
import Harness
import NDEF
import PN532Sim
import TagKit
import Testing
import TestSupport

/// Each tap's outcome, from `tagrouter run`'s router back to the reader: the
/// daemon reads the vpcd card through the tests' pcscd, routes the tap, and
/// the card's reader receives the bytes of the outcome's pattern.
@Suite(.serialized) struct TapFeedbackEndToEndTests {
    static let success = "ff0040a00402010101"
    static let failure = "ff0040500401010201"
    static let noMatch = "ff0040f00401010301"
    static let refused = "ff0040500401010401"

    static let routes = """
        routes:
          - name: ok
            match: { uid: "04a224b2c35e80" }
            actions: [{ log: "ok {{tag.uid}}" }]
          - name: broken
            match: { uid: "04112233445566" }
            actions: [{ log: "broken {{tag.uid}}" }, { shell: { command: ["/bin/false"], retry: { attempts: 1 } } }]
          - name: stranger
            match: { uid: "04999999999999", known: false }
            actions: [{ log: "stranger {{tag.uid}}" }]
        """

    /// `tagrouter run` with one reader on a vpcd slot (its `feedback` and `beep_on_detect` as given), `routes`
    /// and the `extra` top-level sections.
    static func withDaemon(reader settings: String, routes: String = routes, extra: String = "", _ body: (VPCDCard, RunningTool) async throws -> Void) async throws {
        let pcscd = try PCSCDaemon.shared.get()
        try await pcscd.withCard { card, slot in
            let directory = NSTemporaryDirectory() + "tapfeedback-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let config = """
                state_dir: \(directory)/state
                readers:
                  - name: door
                    device: "\(slot.device)"
                    cooldown: 0s
                    exit_delay: 0s
                \(settings.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))
                \(routes)
                \(extra)
                """
            try config.write(toFile: directory + "/tagrouter.yaml", atomically: true, encoding: .utf8)
            try commandToken.write(toFile: directory + "/command-token", atomically: true, encoding: .utf8)
            chmod(directory + "/command-token", 0o600)
            let daemon = try RunningTool(
                BuiltProducts.tagrouter.path,
                ["run", "--config", directory + "/tagrouter.yaml", "--log-format", "json", "--log-level", "debug", "--control", directory + "/control.sock"],
                environment: pcscd.environment.merging(["LIBNFC_AUTO_SCAN": "false"]) { $1 }, directory: directory)
            defer { daemon.signal(SIGTERM) }
            try await daemon.waitForStderr(containing: "reader.connected")
            try await body(card, daemon)
            daemon.signal(SIGTERM)
            _ = try await daemon.termination()
        }
    }

    /// Puts the tag `uid` in the field (in place of any other) and returns the commands its reader got once `expected` was among them.
    static func tap(_ uid: String, on card: VPCDCard, daemon: RunningTool, until expected: String) async throws -> [String] {
        card.replaceAll(with: [try Type2Tag(.ntag215, uid: Hex.bytes(uid)!, message: [])])
        let deadline = ContinuousClock.now + .seconds(20)
        while !card.peripheralLog.map({ Hex.string($0) }).contains(expected) {
            try #require(
                ContinuousClock.now < deadline,
                "tag \(uid): the reader got \(card.peripheralLog.map { Hex.string($0) }), not \(expected); daemon: \(daemon.stderr.suffix(8).map(\.text))")
            try await Task.sleep(for: .milliseconds(10))
        }
        return card.takePeripheralLog().map { Hex.string($0) }
    }

    @Test func everyOutcomeReachesTheReaderAsItsPattern() async throws {
        let settings = """
            feedback:
              model: acr122u
              no_match: { color: orange, blinks: 3 }
              refused: { color: red, blinks: 4 }
            """
        try await Self.withDaemon(reader: settings) { card, daemon in
            for (uid, expected) in [
                ("04a224b2c35e80", Self.success), ("04112233445566", Self.failure), ("04777777777777", Self.noMatch), ("04999999999999", Self.refused),
            ] {
                let got = try await Self.tap(uid, on: card, daemon: daemon, until: expected)
                #expect(got == [expected], "tag \(uid)")
            }
        }
    }

    /// The token `withDaemon` leaves in `command-token`, for `mqtt.commands`.
    static let commandToken = "feedback-e2e-token-0123456789"

    /// Home Assistant answers a tap over MQTT (`<base_topic>/<reader>/feedback`): the reader shows that pattern.
    /// A request without the commands' token shows nothing, and is logged as a refusal (once a minute per reason).
    @Test func anAutomationAnswersATapThroughTheFeedbackTopic() async throws {
        let broker = try await MosquittoBroker()
        let extra = "mqtt: { host: 127.0.0.1, port: \(broker.port), client_id: feedback-e2e, commands: { token_file: command-token } }"
        try await Self.withDaemon(reader: "feedback: { model: acr122u }", extra: extra) { card, daemon in
            try await daemon.waitForStderr(containing: "mqtt subscribed")
            #expect(try await Self.tap("04a224b2c35e80", on: card, daemon: daemon, until: Self.success) == [Self.success])
            // A request for no known moment is refused with what would do, and nothing is shown.
            let refusals = daemon.stderr.count
            try MosquittoBroker.run("/usr/bin/mosquitto_pub", ["-p", String(broker.port), "-q", "1", "-t", "tagrouter/door/feedback", "-m", #"{"token":"feedback-e2e-token-0123456789","pattern":"party"}"#])
            let refusal = try await daemon.waitForStderr(containing: "MQTT feedback request refused", after: refusals)
            #expect(refusal.text.contains("success, failure"))
            // A stranger's request (no token, then a wrong one) is dropped; the owner's is shown, and only it.
            for forged in [#"{"pattern":"success"}"#, #"{"token":"guess-guess-guess-guess","pattern":"success"}"#] {
                try MosquittoBroker.run("/usr/bin/mosquitto_pub", ["-p", String(broker.port), "-q", "1", "-t", "tagrouter/door/feedback", "-m", forged])
            }
            let forged = try await daemon.waitForStderr(containing: #""reason":"unauthenticated""#, after: refusals)
            #expect(forged.text.contains("MQTT feedback request refused") && forged.text.contains(#""level":"warning""#), "\(forged.text)")
            try MosquittoBroker.run("/usr/bin/mosquitto_pub", ["-p", String(broker.port), "-q", "1", "-t", "tagrouter/door/feedback", "-m", #"{"token":"feedback-e2e-token-0123456789","pattern":"failure"}"#])
            let deadline = ContinuousClock.now + .seconds(20)
            while card.peripheralLog.isEmpty {
                try #require(ContinuousClock.now < deadline, "the reader got nothing; daemon: \(daemon.stderr.suffix(8).map(\.text))")
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(card.takePeripheralLog().map { Hex.string($0) } == [Self.failure])
            // The second forged request, within the minute, wrote no line of its own.
            #expect(daemon.stderr[refusals...].filter { $0.text.contains(#""reason":"unauthenticated""#) }.count == 1, "\(daemon.stderr.suffix(8).map(\.text))")
        }
        await broker.stop()
    }

    /// A route that wants its own feedback says so with a `feedback` action.
    @Test func aFeedbackActionShowsTheRoutesOwnPattern() async throws {
        let routes = "routes:\n  - name: own\n    actions: [{ feedback: refused }]"
        let reader = "feedback: { model: acr122u, success: { blinks: 0 }, refused: { color: red, blinks: 4 } }"
        try await Self.withDaemon(reader: reader, routes: routes) { card, daemon in
            let got = try await Self.tap("04a224b2c35e80", on: card, daemon: daemon, until: Self.refused)
            #expect(got == [Self.refused])
        }
    }

    /// vpcd refuses escape commands as Debian's libccid does: said once, with the fix, and the pseudo-APDUs stand in.
    @Test func anACR1252UWhoseDriverRefusesEscapesIsToldOnceAndStillFeedsBack() async throws {
        try await Self.withDaemon(reader: "beep_on_detect: false\nfeedback: { model: acr1252u }") { card, daemon in
            let first = try await Self.tap("04a224b2c35e80", on: card, daemon: daemon, until: Self.success)
            #expect(first == ["ff00520000", Self.success])
            let second = try await Self.tap("04112233445566", on: card, daemon: daemon, until: Self.failure)
            #expect(second == [Self.failure])
            let warnings = daemon.stderr.filter { $0.text.contains("refuses escape commands") }
            #expect(warnings.count == 1)
            #expect(warnings.first?.text.contains("ifdDriverOptions") == true)
        }
    }
}

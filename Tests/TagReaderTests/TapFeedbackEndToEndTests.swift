import Foundation
import NDEF
import PN532Sim
import TagKit
import Testing
import TestSupport

/// Each tap's outcome, from `tagrouter run`'s router back to the reader: the
/// daemon reads the vpcd card through the tests' pcscd, routes the tap, and
/// the card's reader receives the ACR122U bytes of the outcome's pattern.
@Suite(.serialized) struct TapFeedbackEndToEndTests {
    static let success = "ff0040a00402010101"
    static let failure = "ff0040500401010201"
    static let noMatch = "ff0040f00401010301"
    static let refused = "ff0040500401010401"

    @Test func everyOutcomeReachesTheReaderAsItsPattern() async throws {
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
                    feedback:
                      model: acr122u
                      no_match: { color: orange, blinks: 3 }
                      refused: { color: red, blinks: 4 }
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
            try config.write(toFile: directory + "/tagrouter.yaml", atomically: true, encoding: .utf8)
            let daemon = try RunningTool(
                BuiltProducts.tagrouter.path,
                ["run", "--config", directory + "/tagrouter.yaml", "--log-format", "json", "--log-level", "debug", "--control", directory + "/control.sock"],
                environment: pcscd.environment.merging(["LIBNFC_AUTO_SCAN": "false"]) { $1 }, directory: directory)
            defer { daemon.signal(SIGTERM) }
            try await daemon.waitForStderr(containing: "reader.connected")
            for (uid, expected) in [
                ("04a224b2c35e80", Self.success), ("04112233445566", Self.failure), ("04777777777777", Self.noMatch), ("04999999999999", Self.refused),
            ] {
                card.replaceAll(with: [try Type2Tag(.ntag215, uid: Hex.bytes(uid)!, message: [])])
                let deadline = ContinuousClock.now + .seconds(20)
                while !card.peripheralLog.map({ Hex.string($0) }).contains(expected) {
                    try #require(ContinuousClock.now < deadline, "tag \(uid): the reader got \(card.peripheralLog.map { Hex.string($0) }), not \(expected); daemon: \(daemon.stderr.suffix(8).map(\.text))")
                    try await Task.sleep(for: .milliseconds(10))
                }
                #expect(card.takePeripheralLog().map { Hex.string($0) } == [expected], "tag \(uid)")
            }
            daemon.signal(SIGTERM)
            _ = try await daemon.termination()
        }
    }
}

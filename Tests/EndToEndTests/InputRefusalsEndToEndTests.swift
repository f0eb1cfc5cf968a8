import Foundation
import Harness
import TestSupport
import Testing

/// An `mqtt` input's refusals as a user sees them from `tagrouter run`: counted in
/// `/metrics` and `tagrouter status`, and one warning line, not one per message.
@Suite(.timeLimit(.minutes(2)))
struct InputRefusalsEndToEndTests {
    @Test func refusedMessagesShowInTheMetricsAndTheStatusAndAreLoggedOnce() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let broker = try await MosquittoBroker()
        let daemon = try setup.daemon(config: """
            state_dir: \(setup.directory)/state
            readers: []
            mqtt: { host: 127.0.0.1, port: \(broker.port), client_id: refusals-e2e }
            metrics: { listen: "127.0.0.1:0" }
            inputs:
              - mqtt: { topic: "tele/+/SENSOR", format: tasmota, trust: broker }
            routes:
              - name: all
                actions: [{ log: "seen {{reader}} {{tag.uid}}" }]
            """)
        let address = try await daemon.httpAddress()
        try await daemon.waitForStderr(containing: "mqtt subscribed")
        for payload in ["not json {", "still not json", #"{"PN532":{"UID":"94D8FC5F"}}"#] {
            try MosquittoBroker.run("/usr/bin/mosquitto_pub", ["-p", String(broker.port), "-q", "1", "-t", "tele/hall/SENSOR", "-m", payload])
        }
        try await daemon.waitForStdout(containing: "seen hall 94d8fc5f")
        let scrape = try await MetricsScrape("http://\(address)/metrics")
        #expect(scrape.value("tagrouter_input_messages_total", ["input": "inputs[0]", "count": "received"]) == 3)
        #expect(scrape.value("tagrouter_input_messages_total", ["input": "inputs[0]", "count": "malformed"]) == 2)
        #expect(scrape.value("tagrouter_input_messages_total", ["input": "inputs[0]", "count": "refused_local_reader"]) == 0)
        let status = try RunningTool(BuiltProducts.tagrouter.path, ["status", "--control", setup.directory + "/control.sock"], directory: setup.directory)
        _ = try await status.termination()
        let lines = status.stdout.map(\.text)
        #expect(lines.contains { $0.hasPrefix("mqtt input inputs[0]: received 3") && $0.contains("malformed 2") }, "\(lines)")
        let warnings = daemon.stderr.map(\.text).filter { $0.contains("mqtt message refused") }
        #expect(warnings.count == 1, "one line a minute per reason: \(warnings)")
    }
}

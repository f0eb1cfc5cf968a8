import Foundation
import Harness
import TagCore
import TestSupport
import Testing

/// `metrics:` as a user has it: `tagrouter simulate`, `tagrouter run` with a
/// listener, a textfile and an MQTT broker; the metrics read by Prometheus's
/// own parser after known taps; the bearer token; addresses that need one.
@Suite(.timeLimit(.minutes(3)))
struct MetricsEndToEndTests {
    static let key = #"{"op":"place","type":"ntag215","uid":"04a224b2c35e80","records":[{"uri":"https://www.home-assistant.io/tag/front-door-key"}]}"#
    static let stranger = #"{"op":"place","type":"ntag213","uid":"04000000000001","records":[{"text":"hello","lang":"en"}]}"#

    func config(_ setup: Setup, brokerPort: Int, metrics: String) -> String {
        """
        state_dir: \(setup.directory)/state
        readers:
          - { name: front-door, device: "pn532_uart:\(setup.link)", cooldown: 0s, exit_delay: 200ms }
        mqtt: { host: 127.0.0.1, port: \(brokerPort), client_id: metrics-e2e }
        metrics: \(metrics)
        routes:
          - name: key
            match: { event: tag.arrived, uid: "04a224b2c35e80" }
            actions:
              - log: "key {{tag.uid}}"
              - mqtt: { topic: "e2e/key", qos: 1 }
          - name: removals
            match: { event: tag.removed }
            actions:
              - log: "removed {{tag.uid}}"
        """
    }

    @Test func theMetricsCountKnownTapsOnTheListenerAndInTheTextfile() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let broker = try await MosquittoBroker()
        let textfile = setup.directory + "/node/tagrouter.prom"
        try FileManager.default.createDirectory(atPath: setup.directory + "/node", withIntermediateDirectories: true)
        let simulator = try await setup.simulator()
        let daemon = try setup.daemon(config: config(
            setup, brokerPort: broker.port, metrics: #"{ listen: "127.0.0.1:0", file: node/tagrouter.prom, file_interval: 1s }"#))
        let address = try await daemon.httpAddress()
        let events = try await setup.events(of: daemon)

        try await setup.request(Self.key)
        try await events.waitForStdout(containing: "key.1.mqtt delivered")
        try await setup.request(#"{"op":"remove"}"#)
        try await events.waitForStdout(containing: "tag.removed 04a224b2c35e80")
        try await setup.request(Self.stranger)
        try await events.waitForStdout(containing: "tag.arrived 04000000000001")
        try await setup.request(#"{"op":"remove"}"#)
        try await events.waitForStdout(containing: "removals.0.log delivered")
        try await events.waitForStdout(containing: "tag.removed 04000000000001")

        let scrape = try await MetricsScrape("http://\(address)/metrics")
        #expect(scrape.status == 200)
        #expect(scrape.contentType == "text/plain; version=0.0.4; charset=utf-8")
        #expect(scrape.value("tagrouter_events_total", ["reader": "front-door", "kind": "tag.arrived"]) == 2)
        #expect(scrape.value("tagrouter_events_total", ["reader": "front-door", "kind": "tag.removed"]) == 2)
        #expect(scrape.value("tagrouter_events_total", ["reader": "front-door", "kind": "reader.connected"]) == 1)
        #expect(scrape.value("tagrouter_route_matches_total", ["route": "key"]) == 1)
        #expect(scrape.value("tagrouter_route_matches_total", ["route": "removals"]) == 2)
        #expect(scrape.value("tagrouter_action_results_total", ["action": "key.0.log", "result": "delivered"]) == 1)
        #expect(scrape.value("tagrouter_action_results_total", ["action": "key.1.mqtt", "result": "delivered"]) == 1)
        #expect(scrape.value("tagrouter_action_results_total", ["action": "key.1.mqtt", "result": "failed"]) == 0)
        #expect(scrape.value("tagrouter_action_results_total", ["action": "removals.0.log", "result": "delivered"]) == 2)
        #expect(scrape.value("tagrouter_action_queue_depth", ["action": "key.1.mqtt"]) == 0)
        #expect(scrape.value("tagrouter_spool_entries", ["action": "key.1.mqtt"]) == 0)
        #expect(scrape.value("tagrouter_reader_up", ["reader": "front-door"]) == 1)
        #expect(scrape.value("tagrouter_mqtt_connected") == 1)
        #expect(scrape.value("tagrouter_build_info", ["version": tagrouterVersion]) == 1)
        // The histogram: one delivery of key.1.mqtt, in the +Inf bucket and counted, its sum a positive time.
        #expect(scrape.types["tagrouter_tap_to_action_seconds"] == "histogram")
        #expect(scrape.value("tagrouter_tap_to_action_seconds_bucket", ["action": "key.1.mqtt", "le": "+Inf"]) == 1)
        #expect(scrape.value("tagrouter_tap_to_action_seconds_count", ["action": "key.1.mqtt"]) == 1)
        #expect((scrape.value("tagrouter_tap_to_action_seconds_sum", ["action": "key.1.mqtt"]) ?? 0) > 0)
        #expect(scrape.types["tagrouter_events"] == "counter")
        // How fast the reader is: its two arrivals, place → tag.arrived as far as it can tell; the key's
        // arrival → each of its actions' outcomes (the removals' actions are not an arrival's).
        #expect(scrape.types["tagrouter_reader_arrival_seconds"] == "histogram")
        #expect(scrape.value("tagrouter_reader_arrival_seconds_count", ["reader": "front-door"]) == 2)
        #expect((scrape.value("tagrouter_reader_arrival_seconds_sum", ["reader": "front-door"]) ?? 0) > 0)
        #expect(scrape.value("tagrouter_reader_arrival_seconds_bucket", ["reader": "front-door", "le": "+Inf"]) == 2)
        #expect(scrape.types["tagrouter_arrival_to_outcome_seconds"] == "histogram")
        for action in ["key.0.log", "key.1.mqtt"] {
            #expect(scrape.value("tagrouter_arrival_to_outcome_seconds_count", ["reader": "front-door", "action": action]) == 1)
        }
        #expect(scrape.value("tagrouter_arrival_to_outcome_seconds_count", ["reader": "front-door", "action": "removals.0.log"]) == nil)
        // The process metrics of the daemon itself.
        #expect((scrape.value("process_resident_memory_bytes") ?? 0) > 1_000_000)
        #expect((scrape.value("process_open_fds") ?? 0) > 3)
        #expect((scrape.value("process_cpu_seconds_total") ?? -1) >= 0)
        let startTime = scrape.value("process_start_time_seconds") ?? 0
        #expect(abs(startTime - Date().timeIntervalSince1970) < 120, "started \(startTime)")
        // One identity per thing: labels carry names from the config, never a tag's UID.
        let labelValues = scrape.samples.flatMap(\.labels.values)
        #expect(!labelValues.contains { $0.contains("04a224b2c35e80") || $0.contains("04000000000001") })

        // The textfile says the same once rewritten after the taps.
        var fromFile: MetricsScrape?
        #expect(try await eventually {
            guard FileManager.default.fileExists(atPath: textfile) else { return false }
            fromFile = try await MetricsScrape(textfile)
            return fromFile?.value("tagrouter_route_matches_total", ["route": "removals"]) == 2
        })
        #expect(fromFile?.value("tagrouter_action_results_total", ["action": "key.1.mqtt", "result": "delivered"]) == 1)

        // The reader going away shows as down.
        simulator.signal(SIGTERM)
        _ = try await simulator.termination()
        try await events.waitForStdout(containing: "front-door reader.disconnected")
        #expect(try await MetricsScrape("http://\(address)/metrics").value("tagrouter_reader_up", ["reader": "front-door"]) == 0)

        daemon.signal(SIGTERM)
        #expect(try await daemon.termination().status == .exited(0))
        // No temporary file left behind, looked at once the daemon is gone: while it runs, each
        // rewrite (every second) has one beside the textfile for a moment.
        #expect(try FileManager.default.contentsOfDirectory(atPath: setup.directory + "/node") == ["tagrouter.prom"])
    }

    @Test func withATokenFileAWrongOrMissingTokenGets401() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        try "s3cret-token-0123456789\n".write(toFile: setup.directory + "/metrics.token", atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: setup.directory + "/metrics.token")
        let daemon = try setup.daemon(config: """
            readers: []
            metrics: { listen: "0.0.0.0:0", token_file: metrics.token }
            routes: [{ name: all, actions: [log] }]
            """)
        let port = try await daemon.httpAddress().split(separator: ":").last.map(String.init) ?? ""
        for path in ["/metrics", "/api/status"] {
            let missing = try await MetricsScrape("http://127.0.0.1:\(port)\(path)")
            #expect(missing.status == 401)
            #expect(missing.body.contains("unauthorized: this listener needs a bearer token"))
            #expect(missing.wwwAuthenticate == #"Bearer realm="tagrouter""#)
            let wrong = try await MetricsScrape("http://127.0.0.1:\(port)\(path)", token: "s3cret-token-0123456788")
            #expect(wrong.status == 401)
            #expect(wrong.body.contains("the bearer token is wrong"))
        }
        let right = try await MetricsScrape("http://127.0.0.1:\(port)/metrics", token: "s3cret-token-0123456789")
        #expect(right.status == 200)
        #expect(right.value("tagrouter_build_info", ["version": tagrouterVersion]) == 1)
        daemon.signal(SIGTERM)
        #expect(try await daemon.termination().status == .exited(0))
    }

    @Test func anAddressOtherMachinesReachWithoutATokenDoesNotStart() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let daemon = try setup.daemon(config: """
            readers: []
            metrics:
              listen: "0.0.0.0:9464"
            routes: [{ name: all, actions: [log] }]
            """)
        #expect(try await daemon.termination().status == .exited(65))
        let said = daemon.stderr.map(\.text).joined(separator: "\n")
        #expect(said.contains("tagrouter.yaml:3:11: metrics.listen: 0.0.0.0:9464 is reachable from other machines, so it needs `token_file:`"), "\(said)")
    }

    /// `/dev/null` as the token file read as "no token" and served `/api/status` to anyone on the network.
    @Test(arguments: ["/dev/null", "/dev/zero"])
    func aTokenFileThatIsNoFileDoesNotStart(path: String) async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let config = """
            readers: []
            metrics: { listen: "0.0.0.0:0", token_file: \(path) }
            routes: [{ name: all, actions: [log] }]
            """
        let daemon = try setup.daemon(config: config)
        #expect(try await daemon.termination().status == .exited(65))
        let expected = "tagrouter.yaml:2:45: metrics.token_file: '\(path)' is not a regular file but a character device"
        #expect(daemon.stderr.contains { $0.text.contains(expected) }, "\(daemon.stderr.map(\.text))")
        let check = try RunningTool(BuiltProducts.tagrouter.path, ["check-config", setup.directory + "/tagrouter.yaml"], directory: setup.directory)
        #expect(try await check.termination().status == .exited(65))
        #expect((check.stdout + check.stderr).contains { $0.text.contains(expected) }, "\((check.stdout + check.stderr).map(\.text))")
    }

    @Test func aPortInUseStopsTheDaemonWithTheReason() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let first = try setup.daemon(config: "readers: []\nmetrics: { listen: \"127.0.0.1:0\" }\nroutes: [{ name: all, actions: [log] }]\n")
        let address = try await first.httpAddress()
        let second = try setup.daemon(
            config: "readers: []\nmetrics: { listen: \"\(address)\" }\nroutes: [{ name: all, actions: [log] }]\n", control: setup.directory + "/second.sock")
        #expect(try await second.termination().status == .exited(1))
        #expect(second.stderr.contains { $0.text.contains("cannot listen on \(address): the address is in use") })
        first.signal(SIGTERM)
        #expect(try await first.termination().status == .exited(0))
    }
}

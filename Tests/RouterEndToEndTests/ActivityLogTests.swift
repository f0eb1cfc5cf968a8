import DaemonTesting
import Foundation
import Harness
import OrderedJSON
import Testing
import TestSupport

/// The daemon's log answers "did my tap do anything?": one info line per tap with
/// the routes that matched (or none), a line per action only for what needs
/// attention — a flood of the same failure as one line — and the recovery.
/// The daemon runs in process (`TestDaemon`, its log as `run --log-format json` writes it); the packaged
/// config's lines, as the journal gets them from the binary's stdout and stderr, come from the real binary.
@Suite struct ActivityLogTests {
    /// Hands `events` to a daemon for the config file at `config`, and waits until it has routed them all and stopped.
    static func routed(_ events: [JSONValue], config: String) async throws -> TestDaemon {
        let daemon = try TestDaemon(configFile: config)
        for event in events { try await daemon.send(event) }
        daemon.closeInput()
        try await daemon.finished()
        return daemon
    }

    @Test func oneLinePerTapTroubleOnceAndTheRecovery() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let server = try await HTTPTestServer([.init(status: 500), .init(status: 500), .init(status: 500), .init(status: 200)])
        let config = try scratch.write("tagrouter.yaml", """
            state_dir: \(scratch.path)/state
            routes:
              - name: hook
                match: { uid: "04a1" }
                actions:
                  - shell: { command: [/bin/true] }
                  - webhook: { url: "http://127.0.0.1:\(server.port)/hook", retry: { attempts: 1 }, spool: false }
            """)
        let taps = (0..<4).map { _ in arrival(uid: "04a1", uri: "https://example.com/door") } + [arrival(uid: "0499")]
        let daemon = try await Self.routed(taps, config: config)
        let lines = daemon.logLines()
        let stderr = lines.map { $0.serialized() }.joined(separator: "\n")
        func messages(_ prefix: String) -> [JSONValue] { lines.filter { $0["msg"]?.stringValue?.hasPrefix(prefix) == true } }

        let tapLines = messages("tap on door: ")
        #expect(tapLines.map { $0["msg"]?.stringValue } == Array(repeating: "tap on door: ntag215 04a1 https://example.com/door → hook", count: 4)
            + ["tap on door: ntag215 0499 → no route matched"])
        #expect(tapLines.allSatisfy { $0["level"] == "info" })
        #expect(tapLines[0]["routes"] == ["hook"])
        #expect(tapLines[0]["tag_uid"] == "04a1")
        #expect(tapLines[0]["reader"] == "door")
        #expect(tapLines[0]["event_id"] == taps[0]["id"])
        #expect(tapLines[4]["routes"] == [])

        // Three failures for the same reason: one line; then the recovery says how long it took.
        let failures = messages("hook.1.webhook: delivery failed")
        try #require(failures.count == 1, "\(stderr)")
        #expect(failures[0]["level"] == "error")
        #expect(failures[0]["reason"]?.stringValue?.contains("HTTP 500") == true)
        #expect(failures[0]["action"] == "hook.1.webhook")
        let recoveries = messages("hook.1.webhook: recovered after ")
        #expect(recoveries.count == 1, "\(stderr)")
        #expect(recoveries.first?["level"] == "info")

        // Successes are debug lines: neither the shell command nor the delivered webhook says anything.
        #expect(!stderr.contains("shell command finished"))
        #expect(messages("hook.0.shell").isEmpty)
        #expect(await server.waitForRequests(4).count == 4)
    }

    /// The packaged config (packaging/tagrouter.yaml, the service's /etc/tagrouter/tagrouter.yaml) leaves one
    /// line per tap where the journal takes both stdout and stderr: the tap line, and no event JSON for the
    /// arrival or the removal beside it (issue 30: three lines a tap, ~700 bytes); a reader connecting is one
    /// line too.
    @Test func thePackagedConfigWritesOneLinePerTap() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let packaged = BuiltProducts.packageRoot.appendingPathComponent("packaging/tagrouter.yaml").path
        func removal(of event: JSONValue) -> JSONValue {
            guard case .object(var object) = event else { return event }
            object["event"] = "tag.removed"
            object["id"] = .string(UUID().uuidString.lowercased())
            object["dwell_ms"] = 800
            return .object(object)
        }
        let tap = arrival(uid: "04a224b2c35e80", uri: "https://example.com/a", reader: "reader")
        let connected: JSONValue = [
            "event": "reader.connected", "id": .string(UUID().uuidString.lowercased()), "reader": "reader",
            "message": "PN532 (pn532_uart:/dev/ttyUSB0)",
        ]
        let events = [connected, tap, removal(of: tap)]
        let file = try scratch.write("events.jsonl", events.map { $0.serialized() + "\n" }.joined())
        let run = try await ToolRun(
            BuiltProducts.tagrouter.path,
            ["run", "--config", packaged, "--events-from", file, "--log-format", "human", "--state-dir", scratch.path + "/state",
             "--control", scratch.path + "/control.sock"], directory: scratch.path)
        #expect(run.status == 0, "\(run.stderr)")
        let journal = (run.stdout + run.stderr).split(separator: "\n")
        let tapLines = journal.filter { $0.contains("04a224b2c35e80") }
        #expect(tapLines.count == 1, "\(journal)")
        #expect(tapLines.first?.contains("tap on reader: ntag215 04a224b2c35e80 https://example.com/a → log-every-tap ") == true, "\(tapLines)")
        #expect(journal.filter { $0.contains("reader.connected") } == ["reader reader: reader.connected: PN532 (pn532_uart:/dev/ttyUSB0)"], "\(journal)")
    }

    /// A tap and a hold are gestures like an arrival: each leaves one info line, whatever
    /// routes it (issue 21: a hold that fired a webhook left nothing in the journal).
    @Test func tapsAndHoldsLeaveAnInfoLineEach() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let config = try scratch.write("tagrouter.yaml", """
            state_dir: \(scratch.path)/state
            routes:
              - name: held
                match: { event: tag.held }
                actions:
                  - shell: { command: [/bin/true] }
            """)
        func gesture(_ kind: String, from event: JSONValue) -> JSONValue {
            guard case .object(var object) = event else { return event }
            object["event"] = .string(kind)
            object["id"] = .string(UUID().uuidString.lowercased())
            return .object(object)
        }
        let first = arrival(uid: "04a1")
        let taps = [first, gesture("tag.tapped", from: first), gesture("tag.held", from: first), gesture("tag.removed", from: first)]
        let lines = try await Self.routed(taps, config: config).logLines()
        let gestures = lines.filter { $0["event_id"] != nil && $0["level"] == "info" }
        #expect(gestures.map { $0["msg"]?.stringValue ?? "" } == [
            "tap on door: ntag215 04a1 → no route matched",
            "tag.tapped on door: ntag215 04a1 → no route matched",
            "tag.held on door: ntag215 04a1 → held",
        ], "\(lines)")
        #expect(gestures.map { $0["event"] } == ["tag.arrived", "tag.tapped", "tag.held"])
    }

    /// One SUBACK per topic filter used to be one "mqtt subscribed" line each: with Home
    /// Assistant discovery that was six identical lines per connection. Now it is one.
    @Test func mqttSubscribedIsOneLinePerConnection() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let broker = try await MosquittoBroker()
        let file = try scratch.write("tagrouter.yaml", """
            state_dir: \(scratch.path)/state
            readers: []
            mqtt: { host: 127.0.0.1, port: \(broker.port), client_id: pi, home_assistant: { discovery: true } }
            routes:
              - name: all
                actions: [{ log: x }]
            """)
        let daemon = try TestDaemon(configFile: file)
        try await daemon.log(containing: "mqtt subscribed")
        try await daemon.stop()
        // The daemon has stopped: every SUBACK of the connection came long before.
        #expect(daemon.logLines().filter { $0["msg"] == "mqtt subscribed" }.count == 1, "\(daemon.logLines())")
    }

    /// Every kind of action succeeding: at info level the taps are all a user reads; at debug
    /// level each action says `delivered` once per tap (issue 14: webhook said nothing while
    /// shell and open logged every success).
    @Test func successesAreDebugLinesForEveryAction() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let broker = try await MosquittoBroker()
        let server = try await HTTPTestServer([.init(), .init()])
        let opener = try scratch.write("opener", "#!/bin/sh\nprintf '%s\\n' \"$1\" >> '\(scratch.path)/opened'\n")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: opener)
        let config = try scratch.write("tagrouter.yaml", """
            state_dir: \(scratch.path)/state
            mqtt: { host: 127.0.0.1, port: \(broker.port) }
            open: { handler: [\(opener), "{{uri}}"] }
            routes:
              - name: all
                actions:
                  - mqtt: { topic: "taps/{{tag.uid}}", qos: 1 }
                  - shell: { command: [/bin/true] }
                  - open
                  - webhook: "http://127.0.0.1:\(server.port)/hook"
                  - exec: { command: [python3, \(ExampleConfigTests.repositoryRoot)/config/examples/exec-plugin.py, \(scratch.path)/taps.log] }
                  - log: "tap {{tag.uid}}"
            """)
        let taps = [arrival(uid: "04a1", uri: "https://example.com/door"), arrival(uid: "04a2", uri: "https://example.com/door")]
        let daemon = try await Self.routed(taps, config: config)
        let lines = daemon.logLines(from: .debug)
        let stderr = lines.map { $0.serialized() }.joined(separator: "\n")
        let actions = ["all.0.mqtt", "all.1.shell", "all.2.open", "all.3.webhook", "all.4.exec", "all.5.log"]
        let stopped = try #require(lines.last { $0["msg"] == "stopped" })
        for action in actions {
            #expect(stopped["actions"]?[action]?["delivered"] == 2, "\(action): \(String(describing: stopped["actions"]?[action]))")
            let delivered = lines.filter { $0["msg"]?.stringValue == "\(action): delivered" }
            #expect(delivered.count == 2 && delivered.allSatisfy { $0["level"] == "debug" }, "\(action)\n\(stderr)")
        }
        // What info level shows about the taps: their two lines, and nothing an action said.
        let infoAboutTaps = lines.filter { $0["level"] != "debug" && ($0["event_id"] != nil || $0["stderr"] != nil) }
        #expect(infoAboutTaps.map { $0["msg"]?.stringValue ?? "" } == Array(repeating: "tap on door: ntag215 04a1 https://example.com/door → all", count: 1)
            + ["tap on door: ntag215 04a2 https://example.com/door → all"], "\(stderr)")
        #expect(!lines.contains { $0["level"] != "debug" && actions.contains($0["action"]?.stringValue ?? "") }, "\(stderr)")
        #expect(daemon.output == ["tap 04a1", "tap 04a2"])
    }

    /// The broker is down while taps come in: the events wait in the spool without a line
    /// per event (the MQTT plugin said once that the broker is gone); when it is back, one
    /// line says how long it was gone and how many spooled events went out.
    @Test func theBrokerComingBackIsOneLineWithTheSpooledCount() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let (broker, subscriber) = try await Subscriber.onRestartableBroker(filter: "back/#")
        await broker.stop()
        let config = try scratch.write("tagrouter.yaml", """
            state_dir: \(scratch.path)/state
            mqtt: { host: 127.0.0.1, port: \(broker.port), hold: 200ms, reconnect_delay: 50ms, reconnect_delay_max: 200ms }
            routes:
              - name: all
                actions:
                  - mqtt: { topic: "back/{{tag.uid}}", qos: 1, payload: "{{id}}", retry: { attempts: 1, backoff: 100ms, max_backoff: 200ms } }
            """)
        let daemon = try TestDaemon(configFile: config)
        // The sum of `count` over the log lines with `message` for the action.
        func reported(_ message: String) -> Int {
            daemon.logLines(from: .debug).reduce(0) { sum, line in
                guard line["msg"]?.stringValue?.contains(message) == true, line["action"] == "all.0.mqtt", case .int(let count)? = line["count"] else { return sum }
                return sum + Int(count)
            }
        }
        let taps = (1...5).map { arrival(uid: String(format: "08%02x", $0)) }
        for tap in taps { try await daemon.send(tap) }
        // All five are on disk, and the first has given up its attempts: the outage has begun.
        try #require(await eventually { reported("written ahead to the spool") >= 5 }, "\(daemon.logLines(from: .debug))")
        try await daemon.log(containing: "all.0.mqtt: event kept in the spool for later")
        try await broker.start()
        _ = try await subscriber.waitUntil("every tap") { Set($0.map(\.text)).isSuperset(of: taps.compactMap { $0["id"]?.stringValue }) }
        let recovery = JSONValue.object(try await daemon.log(containing: "all.0.mqtt: recovered after").json)
        daemon.closeInput()
        try await daemon.finished()

        let message = try #require(recovery["msg"]?.stringValue)
        #expect(message.hasSuffix("; 5 spooled events delivered"), "\(message)")
        #expect(recovery["level"] == "info")
        #expect(recovery["count"] == 5)
        let lines = daemon.logLines(from: .debug)
        let attention = lines.filter { $0["action"] == "all.0.mqtt" && $0["level"] != "debug" }
        #expect(attention.map { $0["msg"]?.stringValue ?? "" } == [message], "no line per event while the broker was known down\n\(lines)")
        #expect(lines.filter { $0["msg"]?.stringValue?.hasPrefix("no MQTT broker on 127.0.0.1:\(broker.port)") == true }.count == 1)
    }
}

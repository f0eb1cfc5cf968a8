import DaemonTesting
import Foundation
import Harness
import OrderedJSON
import Testing
import TestSupport

/// What a reload keeps, seen from outside with a real mosquitto and a subscriber: the MQTT connection
/// while the `mqtt:` section is unchanged (Home Assistant sees no availability blip; in process), and
/// every spooled event (SIGHUP to the real binary, whose log names the spools).
@Suite(.timeLimit(.minutes(2)))
struct ReloadEndToEndTests {
    private static func arguments(_ file: String) -> [String] {
        ["run", "--config", file, "--events-from", "-", "--log-format", "json", "--log-level", "debug"]
    }

    /// Rewrites the config, sends SIGHUP and waits until the new config routes; returns that log line.
    @discardableResult
    private static func reload(_ daemon: TagrouterProcess, _ scratch: Scratch, _ config: String) async throws -> String {
        let before = daemon.stderr.count
        _ = try scratch.write("tagrouter.yaml", config)
        daemon.signal(SIGHUP)
        return try await daemon.stderr(containing: "the reloaded config routes from now on", after: before)
    }

    @Test func theMQTTConnectionStaysUpWhileItsSectionIsUnchangedAndIsReplacedWhenItChanges() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let broker = try await MosquittoBroker()
        let subscriber = try Subscriber(port: broker.port, filter: "#", qos: 1)
        try await subscriber.waitUntilSubscribed()
        func config(keepalive: String = "60s", extraRoute: String = "") -> String {
            """
            state_dir: \(scratch.path)/state
            mqtt: { host: 127.0.0.1, port: \(broker.port), client_id: reload, keepalive: \(keepalive) }
            routes:
              - name: all
                actions:
                  - mqtt: { topic: "reload/{{tag.uid}}", qos: 1, payload: "{{id}}" }
            \(extraRoute)
            """
        }
        let availability = { subscriber.messages.filter { $0.topic == "tagrouter/reload/status" }.map(\.text) }
        let file = try scratch.write("tagrouter.yaml", config())
        let daemon = try TestDaemon(configFile: file)
        try await subscriber.waitFor("online") { $0.topic == "tagrouter/reload/status" && $0.text == "online" }
        let first = daemon.daemon.runningConfig.loadedPlugins

        // A route added: the connection stays up (the very plugin instance is kept) and the new config's actions publish through it.
        _ = try scratch.write("tagrouter.yaml", config(extraRoute: "  - name: more\n    match: { reader: nowhere }\n    actions: [log]"))
        #expect(DaemonRoutingTests.problems(await daemon.reload()) == nil)
        let kept = daemon.daemon.runningConfig.loadedPlugins
        #expect(kept.map(\.name) == ["log", "mqtt"] || kept.map(\.name) == ["mqtt", "log"], "\(kept.map(\.name))")
        #expect(kept.first { $0.name == "mqtt" } === first.first { $0.name == "mqtt" }, "the mqtt plugin is kept")
        try await daemon.send(arrival(uid: "0401"))
        try await subscriber.waitFor("the event after the reload") { $0.topic == "reload/0401" }
        #expect(availability() == ["online"], "no offline, no second online")

        // The `mqtt:` section changed: the old connection says offline (after its queues drained), the new one online.
        _ = try scratch.write("tagrouter.yaml", config(keepalive: "30s"))
        #expect(DaemonRoutingTests.problems(await daemon.reload()) == nil)
        #expect(daemon.daemon.runningConfig.loadedPlugins.first { $0.name == "mqtt" } !== first.first { $0.name == "mqtt" }, "a new mqtt plugin")
        try await daemon.send(arrival(uid: "0402"))
        try await subscriber.waitFor("the event after the second reload") { $0.topic == "reload/0402" }
        #expect(availability() == ["online", "offline", "online"])

        daemon.closeInput()
        try await daemon.finished()
        _ = try await subscriber.waitUntil("offline at the end") { _ in availability().count >= 4 }
        #expect(availability() == ["online", "offline", "online", "offline"])
    }

    /// An editor or `cp` saving the config in place, caught by reloads on the way:
    /// the file empty, then cut short (its last line, `state_dir`, not written yet),
    /// then still changing.
    /// Each reload is refused saying why, the running config routes every event
    /// meanwhile, and the reload once the whole file is there takes.
    @Test func aConfigSavedInPlaceIsNotReloadedHalfWritten() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        func config(_ name: String) -> String { "routes: [{name: \(name), actions: [{log: \"\(name) {{tag.uid}}\"}]}]\nstate_dir: \(scratch.path)/state\n" }
        let file = try scratch.write("tagrouter.yaml", config("a"))
        let daemon = try TestDaemon(configFile: file)
        func saveInPlace(_ text: String) throws {
            let handle = try #require(FileHandle(forWritingAtPath: file))
            try handle.truncate(atOffset: 0)
            try handle.write(contentsOf: Data(text.utf8))
            try handle.close()
        }
        try await daemon.send(arrival(uid: "00"))
        var expected = ["a 00"]
        #expect(try await daemon.output(count: 1) == expected)
        let whole = config("b")
        let halves = [
            ("", "the config file is empty"),
            (String(whole.prefix { $0 != "\n" }) + "\n", "state_dir: changes from \(scratch.path)/state to "),
        ]
        for (number, (half, problem)) in halves.enumerated() {
            try saveInPlace(half)
            let rejected = try #require(DaemonRoutingTests.problems(await daemon.reload()))
            #expect(rejected.contains { $0.contains(problem) }, "\(rejected)")
            try await daemon.send(arrival(uid: "0\(number + 1)"))
            expected.append("a 0\(number + 1)")
            #expect(try await daemon.output(count: expected.count) == expected, "the running config routes every event")
        }
        // A file that never stops changing (the kernel's uptime, in hundredths of a second) is never taken.
        try FileManager.default.removeItem(atPath: file)
        try FileManager.default.createSymbolicLink(atPath: file, withDestinationPath: "/proc/uptime")
        let changing = try #require(DaemonRoutingTests.problems(await daemon.reload()))
        #expect(changing.contains { $0.contains("the config file kept changing for 3") }, "\(changing)")
        try FileManager.default.removeItem(atPath: file)
        _ = try scratch.write("tagrouter.yaml", "")
        try saveInPlace(whole)
        #expect(DaemonRoutingTests.problems(await daemon.reload()) == nil)
        try await daemon.send(arrival(uid: "09"))
        expected.append("b 09")
        #expect(try await daemon.output(count: expected.count) == expected)
        daemon.closeInput()
        try await daemon.finished()
    }

    @Test func spooledEventsWaitAcrossAReloadAndAreDeliveredOnceWhenTheBrokerReturns() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let (broker, subscriber) = try await Subscriber.onRestartableBroker(filter: "carry/#")
        await broker.stop()
        let dropped = """
              - name: dropped
                continue: true
                actions:
                  - mqtt: { topic: "dropped/{{tag.uid}}", retry: { attempts: 1 } }
            """
        func config(_ extraRoute: String) -> String {
            """
            state_dir: \(scratch.path)/state
            shutdown_timeout: 1s
            mqtt: { host: 127.0.0.1, port: \(broker.port), client_id: carry, reconnect_delay: 50ms, reconnect_delay_max: 200ms, hold: 100ms }
            routes:
            \(extraRoute)
              - name: all
                actions:
                  - mqtt: { topic: "carry/{{tag.uid}}", qos: 1, payload: "{{id}}", retry: { attempts: 1, backoff: 50ms, max_backoff: 200ms } }
            """
        }
        let file = try scratch.write("tagrouter.yaml", config(dropped))
        let daemon = try TagrouterProcess(Self.arguments(file), directory: scratch.path)
        defer { daemon.stop() }
        let events = (1...5).map { arrival(uid: String(format: "04%02x", $0)) }
        for event in events { daemon.send(event) }
        let spooled = await eventually {
            ["all.0.mqtt", "dropped.0.mqtt"].allSatisfy { daemon.reported("written ahead to the spool", action: $0) >= events.count }
        }
        #expect(spooled, "\(daemon.stderr.joined(separator: "\n"))")

        // `all` keeps its id (all.0.mqtt); `dropped` is gone: its spool is named and kept.
        let switched = try await Self.reload(daemon, scratch, config("  - name: extra\n    match: { reader: nowhere }\n    actions: [log]"))
        // The `mqtt:` section is unchanged: its connection is kept; `log` is new.
        #expect(switched.contains(#""plugins_kept":["mqtt"]"#) && switched.contains(#""plugins_started":["log"]"#), "\(switched)")
        let orphan = try JSONValue.parse(try await daemon.stderr(containing: "spooled events wait for an action this config does not have"))
        #expect(orphan["action"] == "dropped.0.mqtt")
        #expect(orphan["directory"]?.stringValue == scratch.path + "/state/spool/dropped.0.mqtt")
        #expect(orphan["count"] == 5)

        try await broker.start()
        let received = try await subscriber.waitFor(count: events.count) { $0.topic.hasPrefix("carry/") }
        #expect(received.map(\.text) == events.map { $0["id"]?.stringValue ?? "?" }, "every event in order")
        daemon.closeInput()
        #expect(try await daemon.exitStatus() == 0)
        #expect(subscriber.messages.filter { $0.topic.hasPrefix("carry/") }.count == events.count, "none twice")
    }
}

import Foundation
import TagCore
import TagRuntime
import Testing

@testable import TagRouter

/// What a reload keeps: plugin instances (and their running services) whose
/// settings did not change, and the spooled events of every action id.
@Suite(.timeLimit(.minutes(1)))
struct ReloadTests {
    static let registry = PluginRegistry([LogPlugin.self, ProbePlugin.self, RecorderPlugin.self, ServiceRecorderPlugin.self])
    let state = NSTemporaryDirectory() + "tagrouter-reload-" + UUID().uuidString

    init() throws { try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true) }

    /// Loads `yaml` as a reload does: keeping what it can of `previous`.
    func load(_ yaml: String, keeping previous: RouterConfig? = nil) throws -> RouterConfig {
        try ConfigLoader(registry: Self.registry, environment: ["HOME": "/tmp"], stateDirectory: state)
            .keeping(previous?.loadedPlugins ?? []).load(text: yaml, file: "t.yaml", directory: state)
    }

    func instance(_ name: String, of config: RouterConfig) -> LoadedPlugin? { config.loadedPlugins.first { $0.name == name } }

    @Test func aPluginIsKeptWhileItsSectionSecretsAndReaderNamesStayTheSame() throws {
        defer { try? FileManager.default.removeItem(atPath: state) }
        try "one\n".write(toFile: state + "/secret", atomically: true, encoding: .utf8)
        chmod(state + "/secret", 0o600)  // a secret file is private, or it is refused
        let first = try load("""
            readers: [{ name: door, cooldown: 1s }]
            probe: { broker: mqtt.local, password_file: secret }
            routes: [{ name: a, actions: [probe, log] }]
            """)
        // Written elsewhere and in block style, with a route and a reader's cooldown changed: the same settings.
        let moved = try load("""
            readers: [{ name: door, cooldown: 2s }]
            routes: [{ name: a, actions: [probe] }, { name: b, actions: [log] }]

            # the same section, further down
            probe:
              broker: mqtt.local
              password_file: secret
            """, keeping: first)
        #expect(instance("probe", of: moved) === instance("probe", of: first))
        #expect(instance("log", of: moved) !== instance("log", of: first), "a plugin that does not say it can be kept is built anew")

        let changed = try load("probe: { broker: other.local, password_file: secret }\nreaders: [{ name: door }]\nroutes: [{ actions: [probe] }]", keeping: moved)
        #expect(instance("probe", of: changed) !== instance("probe", of: moved))
        #expect((changed.plugins.first as? ProbePlugin)?.broker == "other.local")

        let renamed = try load("readers: [{ name: hall }]\nprobe: { broker: other.local, password_file: secret }\nroutes: [{ actions: [probe] }]", keeping: changed)
        #expect(instance("probe", of: renamed) !== instance("probe", of: changed), "Home Assistant discovery announces each reader by name")

        try "two\n".write(toFile: state + "/secret", atomically: true, encoding: .utf8)
        chmod(state + "/secret", 0o600)  // a secret file is private, or it is refused
        let rotated = try load("readers: [{ name: hall }]\nprobe: { broker: other.local, password_file: secret }\nroutes: [{ actions: [probe] }]", keeping: renamed)
        #expect(instance("probe", of: rotated) !== instance("probe", of: renamed), "a rotated secret is read again")
        #expect((rotated.plugins.first as? ProbePlugin)?.password == "two")
    }

    @Test func aKeptPluginsServiceRunsOnAndAReplacedOneStopsBetweenTheRouters() async throws {
        defer { try? FileManager.default.removeItem(atPath: state) }
        let probe = TestProbe()
        func yaml(route label: String, service: String, block: Bool = false) -> String {
            """
            servicer: { probe: \(probe.id), label: \(service) }
            routes:
              - name: r
                actions: [{ recorder: { probe: \(probe.id), label: \(label), block: \(block), spool: false } }]
            """
        }
        let everything: @Sendable (ProbeRecord) -> Bool = { _ in true }
        let steps = { (records: [ProbeRecord]) in records.map { "\($0.step) \($0.label)" } }
        let buffer = EventBuffer(capacity: 100)
        let routing = RoutingService(config: try load(yaml(route: "a", service: "a")), events: buffer)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await routing.run() }
            #expect(steps(try await probe.next(1, where: everything)) == ["started a"])
            buffer.offer(tagEvent())
            #expect(steps(try await probe.next(2, where: everything)) == ["began a", "delivered a"])

            // Only the route changes: the service runs on. Events go through the old
            // router until it has stopped, then through the new one; nothing else happens.
            routing.reload(to: try load(yaml(route: "a2", service: "a"), keeping: routing.latestConfig))
            var through = "a"
            while through == "a" {
                buffer.offer(tagEvent())
                let records = try await probe.next(2, where: everything)
                #expect(records.map(\.step) == [.began, .delivered], "\(steps(records))")
                through = records[0].label
            }
            #expect(through == "a2")

            // Its section changes: the old service stops once the old router has drained, before the new one starts.
            routing.reload(to: try load(yaml(route: "b", service: "b", block: true), keeping: routing.latestConfig))
            #expect(steps(try await probe.next(2, where: everything)) == ["stopped a", "started b"])
            buffer.offer(tagEvent())
            #expect(steps(try await probe.next(1, where: everything)) == ["began b"])

            // At the end the service stops after the last router's queues drained (MQTT says `offline` last).
            buffer.finish()
            probe.open()
            try await group.waitForAll()
        }
        #expect(steps(try await probe.next(2, where: everything)) == ["delivered b", "stopped b"])
    }

    @Test func spooledEventsCarryOverToTheActionWithTheSameID() async throws {
        defer { try? FileManager.default.removeItem(atPath: state) }
        let probe = TestProbe()
        probe.failNext(Int.max)
        func yaml(_ label: String, extraRoute: String = "") -> String {
            """
            routes:
              - name: r
                actions: [{ recorder: { probe: \(probe.id), label: \(label), retry: { attempts: 1, backoff: 20ms, max_backoff: 50ms } } }]
            \(extraRoute)
            """
        }
        let buffer = EventBuffer(capacity: 100)
        let routing = RoutingService(config: try load(yaml("before")), events: buffer)
        let events = (0..<4).map { _ in tagEvent() }
        let later = tagEvent()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await routing.run() }
            for event in events { buffer.offer(event) }
            _ = try await probe.next(2, where: { $0.step == .failed })

            routing.reload(to: try load(yaml("after", extraRoute: "  - name: other\n    actions: [log]"), keeping: routing.latestConfig))
            // The new router's action (same id r.0.recorder) has started once it tries an event itself.
            buffer.offer(later)
            _ = try await probe.next(1, where: { $0.step == .failed && $0.label == "after" })
            probe.failNext(0)
            let delivered = try await probe.next(5)
            #expect(delivered.map(\.eventID) == events.map(\.id) + [later.id], "every event once, in order")
            #expect(delivered.allSatisfy { $0.label == "after" })
            buffer.finish()
            try await group.waitForAll()
        }
        #expect(routing.counters["r.0.recorder"]?.delivered == 5, "none twice")
        #expect(Spool.waiting(under: state).isEmpty)
    }

    /// A reload hands over at once: the first event offered after `reload(to:)` returns is the new config's,
    /// also when the old router was waiting for an event at that moment.
    @Test func theFirstEventAfterAReloadGoesToTheNewConfig() async throws {
        defer { try? FileManager.default.removeItem(atPath: state) }
        let probe = TestProbe()
        func config(_ label: String) -> String {
            "routes: [{ name: r, actions: [{ recorder: { probe: \(probe.id), label: \(label), spool: false } }] }]"
        }
        let buffer = EventBuffer(capacity: 100)
        let routing = RoutingService(config: try load(config("first")), events: buffer)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await routing.run() }
            buffer.offer(tagEvent())
            #expect(try await probe.next(1).map(\.label) == ["first"])
            for round in 1...20 {
                routing.reload(to: try load(config("round\(round)"), keeping: routing.latestConfig))
                buffer.offer(tagEvent())
                #expect(try await probe.next(1).map(\.label) == ["round\(round)"])
            }
            buffer.finish()
            try await group.waitForAll()
        }
    }

    @Test func spooledEventsOfAnActionTheConfigDropsWaitForItsReturn() async throws {
        defer { try? FileManager.default.removeItem(atPath: state) }
        let probe = TestProbe()
        probe.failNext(Int.max)
        let withAction = """
            routes:
              - name: gone
                match: { reader: door }
                actions: [{ recorder: { probe: \(probe.id), retry: { attempts: 1, backoff: 20ms, max_backoff: 50ms } } }]
              - name: hall
                match: { reader: hall }
                actions: [{ recorder: { probe: \(probe.id), label: old, spool: false, retry: { attempts: 1 } } }]
            """
        let without = "routes: [{ name: other, actions: [{ recorder: { probe: \(probe.id), label: other, spool: false, retry: { attempts: 1 } } }] }]"
        let buffer = EventBuffer(capacity: 100)
        let routing = RoutingService(config: try load(withAction), events: buffer)
        let events = (0..<3).map { _ in tagEvent() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await routing.run() }
            for event in events { buffer.offer(event) }
            _ = try await probe.next(1, where: { $0.step == .failed })

            routing.reload(to: try load(without, keeping: routing.latestConfig))
            // Offered after the reload, it is the new config's (route `other`, not `hall`): then the old router has stopped.
            let hall = tagEvent(reader: "hall")
            buffer.offer(hall)
            let routed = try await probe.next(1, where: { $0.eventID == hall.id && ($0.step == .failed || $0.step == .delivered) })
            #expect(routed.map(\.label) == ["other"])
            #expect(Spool.waiting(under: state).map { "\($0.id) \($0.count)" } == ["gone.0.recorder 3"], "kept on disk, not delivered")

            probe.failNext(0)
            routing.reload(to: try load(withAction, keeping: routing.latestConfig))
            #expect(try await probe.next(3).map(\.eventID) == events.map(\.id))
            buffer.finish()
            try await group.waitForAll()
        }
        #expect(Spool.waiting(under: state).isEmpty)
    }
}

import Foundation
import Harness
import OrderedJSON
import TagCore
import TestSupport
import Testing

/// Two central routers (`tagrouter run`, each its own process) on one MQTT 5
/// shared subscription: the broker hands each event to one of them, so between
/// them every event is routed exactly once while both run.
@Suite(.timeLimit(.minutes(2)))
struct SharedSubscriptionTests {
    static func routerConfig(_ setup: Setup, name: String, port: Int) -> String {
        """
        state_dir: \(setup.directory)/state
        readers: []
        mqtt: {host: 127.0.0.1, port: \(port), client_id: \(name), protocol: "5"}
        inputs:
          - mqtt: {topic: "$share/routers/fleet/+/+/tag.arrived", node: "{{levels.1}}", trust: broker}
        routes:
          - name: all
            actions: [{log: "routed {{id}} from {{node}}/{{reader}}"}]
        """
    }

    @Test func twoRoutersSplitTheEventsAndEachIsRoutedOnce() async throws {
        let broker = try await MosquittoBroker()
        let (setupA, setupB) = (try Setup(), try Setup())
        defer { setupA.remove(); setupB.remove() }
        let routers = [
            try setupA.daemon(config: Self.routerConfig(setupA, name: "router-a", port: broker.port)),
            try setupB.daemon(config: Self.routerConfig(setupB, name: "router-b", port: broker.port)),
        ]
        for router in routers { try await router.waitForStderr(containing: "mqtt subscribed") }

        let count = 40
        let lines = (0..<count).map { index in
            TagEvent(kind: .tagArrived, id: "tap-\(index)", reader: "door-\(index % 3)", tag: TagInfo(uid: TagUID(bytes: [4, UInt8(index)]), type: "ntag215"))
                .json.serialized()
        }
        let file = setupA.directory + "/taps.jsonl"
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        try MosquittoBroker.run("/bin/sh", ["-c", "mosquitto_pub -p \(broker.port) -q 1 -t fleet/pi-1/door/tag.arrived -l < \(file)"])

        func routed(_ router: RunningTool) -> [String] {
            router.stdout.map(\.text).filter { $0.hasPrefix("routed ") }
        }
        let deadline = ContinuousClock.now + .seconds(30)
        while routed(routers[0]).count + routed(routers[1]).count < count, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let (a, b) = (routed(routers[0]), routed(routers[1]))
        #expect(a.count + b.count == count, "every event routed once between the two")
        #expect(Set(a + b).count == count, "no event routed by both")
        #expect(!a.isEmpty && !b.isEmpty, "both routers took a share: \(a.count) and \(b.count)")
        #expect((a + b).contains("routed tap-7 from pi-1/door-1"))
    }
}

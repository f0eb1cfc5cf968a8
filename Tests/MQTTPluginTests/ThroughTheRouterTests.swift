import Foundation
import Harness
import OrderedJSON
import Synchronization
import TagCore
import TagRouter
import TagRuntime
import TestSupport
import Testing
@testable import MQTTPlugin

/// The plugin inside the real router: taps while the broker is down wait in
/// memory, then in the router's spool, and reach a subscriber in tap order.
@Suite(.timeLimit(.minutes(2)))
struct ThroughTheRouterTests {
    @Test func tapsWhileTheBrokerIsDownArriveInOrderThroughMemoryAndTheSpool() async throws {
        let (broker, subscriber) = try await Subscriber.onRestartableBroker(filter: "tagrouter/door/#")
        let state = broker.directory.appendingPathComponent("state").path
        let config = try ConfigLoader(registry: PluginRegistry([MQTTPlugin.self]), environment: [:]).load(text: """
            state_dir: \(state)
            readers: [{name: door}]
            mqtt: {host: 127.0.0.1, port: \(broker.port), client_id: router-test, hold: 300ms, reconnect_delay: 50ms, reconnect_delay_max: 200ms}
            routes:
              - name: all
                actions:
                  - mqtt: {retry: {attempts: 2, backoff: 50ms, max_backoff: 200ms}}
            """, file: "test.yaml")
        let router = Router(config: config)
        try await router.whileRunning { buffer in
            func tap(_ index: Int) {
                buffer.offer(TagEvent(kind: .tagArrived, reader: "door", tag: TagInfo(uid: TagUID(bytes: [4, UInt8(index)]), type: "ntag215"), text: String(index)))
            }
            func order(_ messages: [Subscriber.Received]) -> [Int] {
                var seen = Set<Int>()
                return messages.compactMap { message in
                    guard let text = try? JSONValue.parse(message.text)["text"]?.stringValue, let index = Int(text) else { return nil }
                    return seen.insert(index).inserted ? index : nil
                }
            }

            for index in 0..<10 { tap(index) }
            _ = try await subscriber.waitUntil("the first 10 taps") { order($0).count >= 10 }
            await broker.stop()
            for index in 10..<40 { tap(index) }
            let deadline = ContinuousClock.now + .seconds(30)
            while router.counters.values.reduce(0, { $0 + $1.spooled }) == 0 {
                #expect(ContinuousClock.now < deadline, "nothing was spooled while the broker was down")
                if ContinuousClock.now >= deadline { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            try await broker.start()
            let seen = try await subscriber.waitUntil("all 40 taps") { order($0).count >= 40 }
            #expect(order(seen) == Array(0..<40), "first arrivals in tap order")
            #expect(router.counters.values.allSatisfy { $0.failed == 0 && $0.dropped == 0 })
        }
    }

    /// An `mqtt` input and an `mqtt` action in one router: the input's thread
    /// waits until each group of events it read is written ahead, while the
    /// action publishes every event on the `mqtt:` connection.
    @Test func anInputWaitingForTheRouterDoesNotHoldUpTheActionsPublishing() async throws {
        let broker = try await MosquittoBroker()
        let subscriber = try Subscriber(port: broker.port, filter: "relayed/#", qos: 1)
        try await subscriber.waitUntilSubscribed()
        let config = try ConfigLoader(registry: PluginRegistry([MQTTPlugin.self], sources: [MQTTInput.self]), environment: [:]).load(text: """
            state_dir: \(broker.directory.appendingPathComponent("state").path)
            readers: []
            mqtt: {host: 127.0.0.1, port: \(broker.port), client_id: relay}
            inputs: [{mqtt: {topic: "fleet/+/+/tag.arrived", trust: broker}}]
            routes:
              - name: relay
                actions: [{mqtt: {topic: "relayed/{{id}}", queue: 1}}]
            """, file: "test.yaml")
        let input = try #require(config.inputs.first?.source as? MQTTInput)
        let count = 200
        try await Router(config: config).whileRunning { buffer in
            try await config.inputs[0].service(into: buffer).whileRunning {
                await input.connection.subscribed()
                try InputTests.publishTaps(count, on: broker, topic: "fleet/pi-1/door/tag.arrived")
                let relayed = try await subscriber.waitUntil("every tap relayed") { Set($0.map(\.topic)).count >= count }
                #expect(Set(relayed.map(\.topic)) == Set((0..<count).map { "relayed/tap-\($0)" }))
            }
        }
    }

    /// Issue 18: a flooded input must not hold back a local reader's tap. The
    /// input's events wait in the buffer and more wait at the broker (the input
    /// is slowed down, not dropped); a tap a local reader offers then is routed
    /// first — and drops none of the input's events, each of which holds the
    /// broker's acknowledgement (a dropped one stalled the input for good).
    @Test func aLocalTapIsRoutedAheadOfAFloodedInputThatLosesNothing() async throws {
        let broker = try await MosquittoBroker()
        let config = try ConfigLoader(registry: PluginRegistry([MQTTPlugin.self, LogPlugin.self], sources: [MQTTInput.self]), environment: [:]).load(text: """
            state_dir: \(broker.directory.appendingPathComponent("state").path)
            readers: [{name: door}]
            event_buffer: 5
            mqtt: {host: 127.0.0.1, port: \(broker.port), client_id: flooded}
            inputs: [{mqtt: {topic: "fleet/+/tag.arrived", trust: broker}}]
            routes: [{name: all, actions: [log]}]
            """, file: "test.yaml")
        let input = try #require(config.inputs.first?.source as? MQTTInput)
        let observer = DaemonObserver()
        let routed = Mutex<[String]>([])
        _ = observer.watch { record in
            if case .routed(let event, _, _) = record { routed.withLock { $0.append(event.id) } }
        }
        let buffer = EventBuffer(capacity: config.eventBuffer)
        let flood = 500
        try await config.inputs[0].service(into: buffer).whileRunning {
            await input.connection.subscribed()
            try InputTests.publishTaps(flood, on: broker, topic: "fleet/pi-1/tag.arrived")
            // The input has handed on what it could and waits: for room (its lane is full; the message it
            // holds is counted received), or for its group's acceptance (all it received is in the buffer).
            #expect(await eventually { buffer.count == config.eventBuffer || (buffer.count > 0 && buffer.count == input.counters.received) },
                    "the input's events wait in the buffer")
            let tap = TagEvent(kind: .tagArrived, reader: "door", tag: TagInfo(uid: TagUID(bytes: [4, 1, 2, 3]), type: "ntag215"))
            buffer.offer(tap)
            #expect(buffer.dropped == 0)
            let router = Task { try await RoutingService(config: config, events: buffer, observer: observer).run() }
            defer { router.cancel() }
            #expect(await eventually { routed.withLock { $0.count } >= flood + 1 }, "every event of the flood is routed")
            let order = routed.withLock { $0 }
            #expect(order.first == tap.id, "the tap is routed first, ahead of the input's waiting events and the flood at the broker")
            #expect(Set(order) == Set((0..<flood).map { "tap-\($0)" } + [tap.id]))
            buffer.finish()
            try await router.value
        }
        #expect(input.counters.received == flood)
    }
}

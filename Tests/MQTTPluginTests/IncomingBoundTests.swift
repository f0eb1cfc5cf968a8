import Foundation
import Harness
import Lifecycle
import TestSupport
import Testing
@testable import MQTTPlugin

/// What the connection reads from the broker is bounded between the socket and
/// its consumer, in messages and in bytes, by backpressure (the connection stops
/// reading) rather than drops; and with MQTT 5 the broker sends no message larger
/// than the consumers take.
@Suite(.timeLimit(.minutes(2)))
struct IncomingBoundTests {
    static func settings(_ broker: MosquittoBroker, version: MQTTSettings.ProtocolVersion, subscriptions: [String] = []) -> MQTTSettings {
        var settings = MQTTSettings(
            host: "127.0.0.1", port: broker.port, clientID: "bound-\(UUID().uuidString.prefix(8))", keepalive: 60, protocolVersion: version,
            backoff: Backoff(initial: .milliseconds(50), maximum: .milliseconds(500)), subscriptions: subscriptions)
        settings.maxInFlight = 16
        return settings
    }

    /// A started connection; with subscriptions, once the broker granted them.
    static func start(_ broker: MosquittoBroker, version: MQTTSettings.ProtocolVersion, subscriptions: [String] = []) async -> MQTTConnection {
        let connection = MQTTConnection(settings(broker, version: version, subscriptions: subscriptions))
        connection.start()
        if !subscriptions.isEmpty { await connection.subscribed() }
        return connection
    }

    /// Takes `count` messages from `connection.incoming`, in the order they come.
    static func take(_ count: Int, from connection: MQTTConnection) async -> [MQTTMessage] {
        var messages: [MQTTMessage] = []
        var iterator = connection.incoming.makeAsyncIterator()
        while messages.count < count, let incoming = await iterator.next() { messages.append(incoming.message) }
        return messages
    }

    /// The connection the `mqtt` actions share (messages acknowledged on arrival): a consumer
    /// that takes nothing while a flood arrives holds at most the limit in memory, the rest
    /// waits at the broker, and once it takes again every QoS 1 message arrives, in order.
    @Test func aStalledConsumerStopsTheReadingAndLaterGetsEveryMessageInOrder() async throws {
        let broker = try await MosquittoBroker()
        let connection = await Self.start(broker, version: .v311, subscriptions: ["flood/#"])
        let count = 10 * MQTTConnection.incomingMessageLimit
        let lines = (0..<count).map { "message \($0)" }
        try broker.publishLines(lines, topic: "flood/in")  // returns once the broker has them all

        #expect(await eventually { connection.heldBack >= 1 }, "the connection never stopped reading: \(connection.unconsumed)")
        let held = connection.unconsumed
        #expect(held.messages == MQTTConnection.incomingMessageLimit && held.peakMessages == MQTTConnection.incomingMessageLimit, "\(held)")
        #expect(connection.received == MQTTConnection.incomingMessageLimit, "read no more than the consumer has room for")

        let taken = await Self.take(count, from: connection)
        #expect(taken.map(\.text) == lines, "every message, in order")
        let after = connection.unconsumed
        #expect(after.messages == 0 && after.bytes == 0 && after.peakMessages <= MQTTConnection.incomingMessageLimit, "\(after)")
        #expect(connection.status == .connected)
        await connection.stop()
    }

    /// A consumer that takes nothing for two keepalive intervals: the broker's PINGRESP waits
    /// unread behind the held messages, so libmosquitto gives the connection up, and it says
    /// why (not "another client took over"). What was not read was not acknowledged: a
    /// persistent session gets it again, so the consumer still sees every message, in order.
    @Test func aConsumerStalledPastKeepaliveReconnectsAndLosesNothingWithAPersistentSession() async throws {
        let broker = try await MosquittoBroker()
        var settings = Self.settings(broker, version: .v311, subscriptions: ["stall/#"])
        settings.keepalive = 5  // libmosquitto's least
        settings.persistentSession = true
        let connection = MQTTConnection(settings)
        var statuses = connection.statusUpdates().makeAsyncIterator()
        connection.start()
        await connection.subscribed()
        let count = 4 * MQTTConnection.incomingMessageLimit
        let lines = (0..<count).map { "message \($0)" }
        try broker.publishLines(lines, topic: "stall/in")

        var status: MQTTConnection.Status?
        repeat { status = await statuses.next() } while status == .idle || status == .connecting || status == .connected
        #expect(status == .disconnected(.consumerStalled(broker: settings.broker, keepalive: 5)))
        #expect(connection.heldBack == 1 && connection.unconsumed.messages == MQTTConnection.incomingMessageLimit, "\(connection.unconsumed)")

        var seen: [String] = []
        var iterator = connection.incoming.makeAsyncIterator()
        while Set(seen).count < count, let incoming = await iterator.next() { seen.append(incoming.message.text) }
        var first = Set<String>()
        #expect(seen.filter { first.insert($0).inserted } == lines, "every message, in order (a copy may come again after the reconnect)")
        #expect(connection.takeovers == 0)
        #expect(connection.report.problem.contains("not even its keepalive answer"), "\(connection.report.problem)")
        await connection.stop()
    }

    /// The same bound in bytes: large messages stop the reading before their number does.
    /// MQTT 5, so each one is at most `maximumIncomingPacket`.
    @Test func largeMessagesAreBoundedInBytes() async throws {
        let broker = try await MosquittoBroker()
        let publisher = await Self.start(broker, version: .v5)
        let consumer = await Self.start(broker, version: .v5, subscriptions: ["large/#"])
        let size = 60 << 10
        let count = 3 * MQTTConnection.incomingByteLimit / size
        let payloads = (0..<count).map { Array(String(format: "%06d", $0).utf8) + [UInt8](repeating: 0x61, count: size - 6) }
        for payload in payloads { _ = publisher.enqueue(MQTTMessage(topic: "large/in", payload: payload), hold: .seconds(60)) }
        try await publisher.publish(MQTTMessage(topic: "large/end", text: "end"), hold: .seconds(60))

        #expect(await eventually { consumer.heldBack >= 1 }, "the connection never stopped reading: \(consumer.unconsumed)")
        let held = consumer.unconsumed
        #expect(held.messages < MQTTConnection.incomingMessageLimit, "the bytes stopped it: \(held)")
        #expect(held.peakBytes >= MQTTConnection.incomingByteLimit && held.peakBytes < MQTTConnection.incomingByteLimit + MQTTSession.maximumIncomingPacket, "\(held)")

        let taken = await Self.take(count + 1, from: consumer)
        #expect(taken.map(\.payload) == payloads + [Array("end".utf8)], "every message, whole and in order")
        #expect(consumer.unconsumed.peakBytes < MQTTConnection.incomingByteLimit + MQTTSession.maximumIncomingPacket)
        await publisher.stop()
        await consumer.stop()
    }

    /// MQTT 5: CONNECT says the largest packet this client takes, so the broker drops a larger
    /// message for it (and logs that) instead of sending it; the connection stays up and the next
    /// message arrives.
    @Test func theBrokerSendsNoMessageLargerThanTheConsumersTake() async throws {
        let broker = try await MosquittoBroker()
        let publisher = await Self.start(broker, version: .v311)
        let consumer = await Self.start(broker, version: .v5, subscriptions: ["size/#"])
        let fits = [UInt8](repeating: 0x62, count: MQTTSession.maximumIncomingPacket - 1024)
        try await publisher.publish(MQTTMessage(topic: "size/too-large", payload: [UInt8](repeating: 0x61, count: MQTTSession.maximumIncomingPacket)), hold: .seconds(30))
        try await publisher.publish(MQTTMessage(topic: "size/fits", payload: fits), hold: .seconds(30))

        let taken = await Self.take(1, from: consumer)
        #expect(taken.map(\.topic) == ["size/fits"] && taken.first?.payload == fits)
        #expect(consumer.received == 1, "the larger message never reached the client")
        #expect(await eventually { broker.log.contains("Dropping too large outgoing PUBLISH") }, "mosquitto says why: \(broker.log)")
        #expect(consumer.status == .connected && consumer.takeovers == 0)
        await publisher.stop()
        await consumer.stop()
    }
}

/// `MQTTConnection.incoming`: the messages that arrived on the subscriptions,
/// for one consumer. Each message taken gives its room back to the connection's
/// `IncomingBacklog`, so the loop thread reads the socket only while the
/// consumer keeps up.
public struct MQTTIncomingStream: AsyncSequence, Sendable {
    public typealias Element = MQTTIncoming

    let messages: AsyncStream<MQTTIncoming>
    let backlog: IncomingBacklog

    /// Takes the messages one at a time; ends when the connection has stopped (or the consumer is cancelled).
    public struct AsyncIterator: AsyncIteratorProtocol {
        var messages: AsyncStream<MQTTIncoming>.AsyncIterator
        let backlog: IncomingBacklog

        public mutating func next() async -> MQTTIncoming? {
            guard let incoming = await messages.next() else { return nil }
            backlog.taken(incoming.message)
            return incoming
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(messages: messages.makeAsyncIterator(), backlog: backlog)
    }
}

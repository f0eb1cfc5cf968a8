/// One MQTT application message: what the connection publishes and what it
/// hands back from its subscriptions.
public struct MQTTMessage: Sendable, Equatable {
    public var topic: String
    public var payload: [UInt8]
    /// 0 (at most once), 1 (at least once) or 2 (exactly once, per connection).
    public var qos: Int
    public var retain: Bool

    public init(topic: String, payload: [UInt8], qos: Int = 1, retain: Bool = false) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
    }

    public init(topic: String, text: String, qos: Int = 1, retain: Bool = false) {
        self.init(topic: topic, payload: Array(text.utf8), qos: qos, retain: retain)
    }

    /// The payload read as UTF-8.
    public var text: String { String(decoding: payload, as: UTF8.self) }
}

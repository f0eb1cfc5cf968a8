/// One MQTT application message: what the connection publishes and what it
/// hands back from its subscriptions.
public struct MQTTMessage: Sendable, Equatable {
    public var topic: String
    public var payload: [UInt8]
    /// 0 (at most once), 1 (at least once) or 2 (exactly once, per connection).
    public var qos: Int
    public var retain: Bool
    /// MQTT 5 user properties (name, value), in order; a 3.1.1 connection neither sends nor receives them.
    public var userProperties: [UserProperty] = []

    /// One MQTT 5 user property: a name and a value, both UTF-8.
    public struct UserProperty: Sendable, Equatable {
        public var name, value: String

        public init(_ name: String, _ value: String) { (self.name, self.value) = (name, value) }
    }

    public init(topic: String, payload: [UInt8], qos: Int = 1, retain: Bool = false, userProperties: [UserProperty] = []) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
        self.userProperties = userProperties
    }

    public init(topic: String, text: String, qos: Int = 1, retain: Bool = false) {
        self.init(topic: topic, payload: Array(text.utf8), qos: qos, retain: retain)
    }

    /// The payload read as UTF-8.
    public var text: String { String(decoding: payload, as: UTF8.self) }

    /// The bytes it holds in memory: topic, payload and user properties (what `IncomingBacklog` counts).
    var heldBytes: Int {
        userProperties.reduce(topic.utf8.count + payload.count) { $0 + $1.name.utf8.count + $1.value.utf8.count }
    }
}

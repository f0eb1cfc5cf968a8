import Lifecycle

/// Everything the shared connection needs to know, resolved from the
/// top-level `mqtt:` section (secrets already read from their files).
public struct MQTTSettings: Sendable, Equatable {
    /// The MQTT protocol spoken on the wire.
    public enum ProtocolVersion: String, Sendable, Equatable, CaseIterable {
        case v311 = "3.1.1"
        case v5 = "5"
    }

    /// TLS towards the broker; paths are absolute.
    public struct TLS: Sendable, Equatable {
        /// PEM file of the CA(s) to trust; nil trusts the system's CA store.
        public var caFile: String?
        /// Client certificate and key (PEM) for brokers that authenticate clients by certificate.
        public var certFile: String?
        public var keyFile: String?
        /// Skip certificate and host name verification (test brokers only).
        public var insecure: Bool

        public init(caFile: String? = nil, certFile: String? = nil, keyFile: String? = nil, insecure: Bool = false) {
            self.caFile = caFile
            self.certFile = certFile
            self.keyFile = keyFile
            self.insecure = insecure
        }
    }

    public var host: String
    public var port: Int
    public var clientID: String
    public var username: String?
    public var password: String?
    public var tls: TLS?
    /// Seconds between PINGREQs when idle; the broker drops us after 1.5× this without traffic.
    public var keepalive: Int
    public var protocolVersion: ProtocolVersion
    /// Retained `online` on every connect, and the last will `offline` (also
    /// published, retained, on a clean stop); nil for neither.
    public var availabilityTopic: String?
    /// The wait between connection attempts; a CONNACK starts it again from `initial`.
    public var backoff: Backoff
    /// Messages handed to the broker before their acknowledgements come back.
    public var maxInFlight: Int
    /// Published (QoS 1, retained) right after `online` on every connect,
    /// before any message of the backlog: Home Assistant discovery.
    public var birthMessages: [MQTTMessage]
    /// Topic filters subscribed (QoS 1) on every connect; what arrives comes
    /// out of `MQTTConnection.incoming`.
    public var subscriptions: [String]
    /// Ask the broker to keep the session — subscriptions, and the QoS 1
    /// messages not yet acknowledged or sent — while the client is away
    /// (MQTT 3.1.1 `clean session` off; MQTT 5 `clean start` off with
    /// `sessionExpiry`). Needs a client id that stays the same across restarts.
    public var persistentSession = false
    /// MQTT 5: how long the broker keeps a persistent session after the client
    /// went away (3.1.1 brokers decide that themselves).
    public var sessionExpiry: Duration = .seconds(86_400)
    /// Acknowledge each incoming QoS 1 message only once its consumer released
    /// its `Acceptance` (see `MQTTConnection.incoming`), instead of as it arrives.
    public var acknowledgeWhenAccepted = false

    /// The settings a config gives (`host`, `port`, `keepalive`, `protocol`, the reconnect delays) have no
    /// defaults here: theirs are in the `mqtt:` section's spec, which `MQTTSection` reads.
    public init(
        host: String, port: Int, clientID: String, username: String? = nil, password: String? = nil,
        tls: TLS? = nil, keepalive: Int, protocolVersion: ProtocolVersion, availabilityTopic: String? = nil,
        backoff: Backoff, maxInFlight: Int = 64, birthMessages: [MQTTMessage] = [], subscriptions: [String] = []
    ) {
        self.host = host
        self.port = port
        self.clientID = clientID
        self.username = username
        self.password = password
        self.tls = tls
        self.keepalive = keepalive
        self.protocolVersion = protocolVersion
        self.availabilityTopic = availabilityTopic
        self.backoff = backoff
        self.maxInFlight = maxInFlight
        self.birthMessages = birthMessages
        self.subscriptions = subscriptions
    }

    /// `host:port`, as errors name the broker.
    public var broker: String { "\(host):\(port)" }
}

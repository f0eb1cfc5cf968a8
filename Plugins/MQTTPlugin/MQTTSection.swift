import FoundationEssentials
import Glibc
import TagCore
import TagRouter

/// The top-level `mqtt:` section: the one shared connection and what every
/// `mqtt` action has in common.
struct MQTTSection: Sendable {
    var settings: MQTTSettings
    /// The first level of the default topics: `<base_topic>/<reader>/<event kind>`.
    var baseTopic: String
    /// How long a message waits in memory for the broker before it is handed back to the router's retry and spool.
    var hold: Duration
    /// Home Assistant discovery, when enabled.
    var discovery: HomeAssistantDiscovery?
    /// Where `home_assistant.discovery` is written, for warnings about it.
    var discoveryMark: SourceMark?
    /// Listen for write requests on `<base_topic>/<reader>/write`.
    var commands: Bool
    /// A write request may lock the tag (`lock: true`).
    var allowLock: Bool

    static let tlsSpec = OptionSpec("TLS towards the broker (present: on)", [
        Option("ca_file", .string, "PEM file of the CA that signed the broker's certificate; default: the system's CA store"),
        Option("cert_file", .string, "client certificate (PEM), for brokers that authenticate clients by certificate"),
        Option("key_file", .string, "the client certificate's private key (PEM, no passphrase)"),
        Option("insecure", .bool, default: "false", "skip certificate and host name checks (test brokers only)"),
    ])

    static let homeAssistantSpec = OptionSpec("Home Assistant MQTT discovery", [
        Option("discovery", .bool, default: "false", "announce each reader as a tag scanner and a tag-removal event entity"),
        Option("prefix", .string, default: "homeassistant", "HA's discovery prefix"),
    ])

    static let spec = OptionSpec("the MQTT broker connection shared by every `mqtt` action", [
        Option("host", .string, default: "localhost", "broker host name or address"),
        Option("port", .int(1...65535), default: "1883", "broker port (8883 is the usual TLS port)"),
        Option("client_id", .string, "MQTT client id; default: `tagrouter-<hostname>`"),
        Option("username", .string, "user name, when the broker asks for one"),
        Option("password", .template, "password; prefer `password_file` or `{{env.NAME}}` (read at load) so the config can be shared"),
        Option("password_file", .secretFile, "file holding the password (trimmed)"),
        Option("tls", .section(tlsSpec), "connect with TLS"),
        Option("keepalive", .duration, default: "60s", "ping interval when idle; the broker drops the client after 1.5× this without traffic"),
        Option("protocol", .choice(MQTTSettings.ProtocolVersion.allCases.map(\.rawValue)), default: "3.1.1", "MQTT protocol version"),
        Option("base_topic", .string, default: "tagrouter", "first level of the default topics `<base_topic>/<reader>/<event kind>`"),
        Option("availability_topic", .string, "retained `online` on connect and last will `offline`; default: `<base_topic>/<client_id>/status`; `\"\"` for none"),
        Option("reconnect_delay", .duration, default: "1s", "wait before the first reconnect; doubles after each failure"),
        Option("reconnect_delay_max", .duration, default: "30s", "longest wait between reconnects"),
        Option("hold", .duration, default: "10s", "how long a message waits in memory for an unreachable broker before the delivery counts as failed (then retried, then spooled)"),
        Option("home_assistant", .section(homeAssistantSpec), "Home Assistant MQTT discovery"),
        Option("commands", .bool, default: "false", "write tags on request: a message on `<base_topic>/<reader>/write` writes the next tag placed on that reader; the result goes to `…/write/result` (docs/home-assistant.md); `{\"pattern\": \"success\"}` on `<base_topic>/<reader>/feedback` shows that `readers[].feedback` pattern (docs/feedback.md)"),
        Option("allow_lock", .bool, default: "false", "a write request may make the tag read-only for ever (`lock: true`)"),
    ])

    /// Reads a validated section, defaults filled in.
    init(_ value: ConfigValue, readers: [String]) throws(ConfigErrors) {
        var errors = ConfigErrors()
        let clientID = value.optionalString("client_id") ?? "tagrouter-\(Self.hostName)"
        let baseTopic = value.string("base_topic")
        let nodeID = HomeAssistantDiscovery.topicID(clientID)
        var availability = value.optionalString("availability_topic") ?? "\(baseTopic)/\(nodeID)/status"
        if value.has("availability_topic"), value.optionalString("availability_topic") == nil { availability = "" }
        let keepalive = Int(value.duration("keepalive").components.seconds)
        if keepalive < 5 { errors.append(contentsOf: value.error("keepalive", "must be at least 5s")) }
        var tls: MQTTSettings.TLS?
        if value.has("tls") {
            let section = value.section("tls")
            tls = MQTTSettings.TLS(
                caFile: Self.file(section, "ca_file", &errors), certFile: Self.file(section, "cert_file", &errors),
                keyFile: Self.file(section, "key_file", &errors), insecure: section.bool("insecure"))
            if (tls?.certFile == nil) != (tls?.keyFile == nil) {
                errors.append(contentsOf: section.error(nil, "cert_file and key_file go together; give both or neither"))
            }
        }
        let username = value.optionalString("username")
        let password = value.optionalTemplate("password")?.render(.object(JSONObject())) ?? value.child("password_file")?.fileContents
        if password != nil, username == nil {
            errors.append(contentsOf: value.error("password", "a password needs a username"))
        }
        guard errors.isEmpty else { throw errors }
        let availabilityTopic = availability.isEmpty ? nil : availability
        let homeAssistant = value.section("home_assistant")
        if homeAssistant.bool("discovery") {
            discoveryMark = homeAssistant.child("discovery")?.mark
            discovery = HomeAssistantDiscovery(
                prefix: homeAssistant.string("prefix"), nodeID: nodeID, baseTopic: baseTopic,
                availabilityTopic: availabilityTopic, softwareVersion: tagrouterVersion)
        }
        self.baseTopic = baseTopic
        commands = value.bool("commands")
        allowLock = value.bool("allow_lock")
        let commandTopics = commands
            ? readers.flatMap { [MQTTWriteCommands.topic(baseTopic: baseTopic, reader: $0), MQTTFeedbackCommands.topic(baseTopic: baseTopic, reader: $0)] } : []
        hold = value.duration("hold")
        settings = MQTTSettings(
            host: value.string("host"), port: value.int("port"), clientID: clientID,
            username: username, password: password, tls: tls, keepalive: keepalive,
            protocolVersion: value.choice("protocol"), availabilityTopic: availabilityTopic,
            backoff: Backoff(initial: value.duration("reconnect_delay"), maximum: value.duration("reconnect_delay_max")),
            birthMessages: discovery?.configMessages(readers: readers) ?? [],
            subscriptions: (discovery?.subscriptions ?? []) + commandTopics)
    }

    /// An existing file named by `key`, made absolute; reports a missing one.
    private static func file(_ section: ConfigValue, _ key: String, _ errors: inout ConfigErrors) -> String? {
        guard let path = section.optionalString(key) else { return nil }
        let absolute = section.context.resolve(path)
        guard FileManager.default.isReadableFile(atPath: absolute) else {
            errors.append(contentsOf: section.error(key, "cannot read \(absolute)"))
            return nil
        }
        return absolute
    }

    private static var hostName: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "localhost" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

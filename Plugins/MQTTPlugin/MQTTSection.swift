import FoundationEssentials
import Glibc
import Lifecycle
import OrderedJSON
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
    /// Listen for write requests on `<base_topic>/<reader>/write` that carry this token; nil: off.
    var commandToken: CommandToken?
    /// A write request may lock the tag (`lock: true`).
    var allowLock: Bool
    /// Signs what every `mqtt` action publishes (`sign:`); nil: unsigned.
    var signingKey: EventSignature.Key?

    static let tlsSpec = OptionSpec("TLS towards the broker (present: on)", [
        Option("ca_file", .string, "PEM file of the CA that signed the broker's certificate; default: the system's CA store"),
        Option("cert_file", .string, "client certificate (PEM), for brokers that authenticate clients by certificate"),
        Option("key_file", .string, "the client certificate's private key (PEM, no passphrase)"),
        Option("insecure", .bool, default: "false", "skip certificate and host name checks (test brokers only)"),
    ])

    static let homeAssistantSpec = OptionSpec("Home Assistant MQTT discovery", [
        Option("discovery", .bool, default: "false",
            "announce each reader as a tag scanner, a tap/hold/removal event entity, tap and hold device triggers, and presence sensors"),
        Option("prefix", .string, default: "homeassistant", "HA's discovery prefix"),
        Option("support_url", .string, "the link HA's device page shows for help (`origin.support_url` of every discovery config)"),
    ])

    static let signSpec = OptionSpec("sign what `mqtt` actions publish, for `mqtt` inputs of other nodes (needs `protocol: 5`)", [
        Option("key_id", .string, required: true, "this node's key id, as the receiving inputs list it under `keys:`"),
        Option("key_file", .secretFile, required: true, "file holding the shared key (at least 16 bytes, trimmed; `openssl rand -hex 32`)"),
    ])

    static let commandsSpec = OptionSpec("write tags on request from MQTT (docs/home-assistant.md)", [
        Option("token_file", .secretFile, required: true,
            "file holding the token (at least \(CommandToken.minimumLength) characters) every write request carries as `token`; a request without it is not answered"),
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
        Option("commands", .section(commandsSpec), "write tags on request: a message on `<base_topic>/<reader>/write` with the token writes the next tag placed on that reader; the result goes to `…/write/result` (docs/home-assistant.md); `{\"token\": …, \"pattern\": \"success\"}` on `<base_topic>/<reader>/feedback` shows that `readers[].feedback` pattern (docs/feedback.md)"),
        Option("allow_lock", .bool, default: "false", "a write request may make the tag read-only for ever (`lock: true`)"),
        Option("sign", .section(signSpec), "sign each message of the `mqtt` actions (HMAC-SHA256 in MQTT 5 user properties; the payload is unchanged)"),
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
        let signingKey = Self.signingKey(value, &errors)
        let commandToken = value.has("commands") ? value.section("commands").child("token_file")?.fileContents : nil
        if let commandToken, commandToken.count < CommandToken.minimumLength {
            errors.append(contentsOf: value.section("commands").error(
                "token_file", "the token is \(commandToken.count) characters; write one of at least \(CommandToken.minimumLength) (e.g. `openssl rand -hex 24`)"))
        }
        let homeAssistant = value.section("home_assistant")
        let supportURL = homeAssistant.optionalString("support_url")
        if let supportURL, !supportURL.hasPrefix("https://"), !supportURL.hasPrefix("http://") {
            errors.append(contentsOf: homeAssistant.error("support_url", "'\(supportURL)' is not an http(s) URL; Home Assistant rejects the discovery config otherwise"))
        }
        guard errors.isEmpty else { throw errors }
        self.signingKey = signingKey
        let availabilityTopic = availability.isEmpty ? nil : availability
        if homeAssistant.bool("discovery") {
            discoveryMark = homeAssistant.child("discovery")?.mark
            discovery = HomeAssistantDiscovery(
                prefix: homeAssistant.string("prefix"), nodeID: nodeID, baseTopic: baseTopic,
                availabilityTopic: availabilityTopic, softwareVersion: tagrouterVersion, supportURL: supportURL)
        }
        self.baseTopic = baseTopic
        self.commandToken = commandToken.map(CommandToken.init)
        allowLock = value.bool("allow_lock")
        let commandTopics = commandToken != nil
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

    /// The key of `sign:`, or nil (none, or a problem reported in `errors`).
    private static func signingKey(_ value: ConfigValue, _ errors: inout ConfigErrors) -> EventSignature.Key? {
        guard value.has("sign") else { return nil }
        let sign = value.section("sign")
        if value.choice("protocol", as: MQTTSettings.ProtocolVersion.self) != .v5 {
            errors.append(contentsOf: sign.error(nil, "signatures travel in MQTT 5 user properties; set `mqtt.protocol: 5`"))
        }
        // A missing key_id is reported by the validator (it is required); reading it as defaulted would trap.
        guard let id = sign.optionalString("key_id") else { return nil }
        if let problem = EventSignature.problem(withKeyID: id) { errors.append(contentsOf: sign.error("key_id", problem)) }
        guard let secret = sign.child("key_file")?.fileContents else { return nil }  // an unreadable file is reported by the validator
        if let problem = EventSignature.problem(withSecret: secret) { errors.append(contentsOf: sign.error("key_file", problem)) }
        return EventSignature.Key(id: id, secret: Array(secret.utf8))
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

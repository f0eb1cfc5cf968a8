import Dispatch
import FoundationEssentials
import TagCore
import TagRouter

/// The `mqtt` input: events from the broker of the `mqtt:` section — other
/// tagrouter nodes, Tasmota readers, anything that publishes UIDs — through the
/// same routes as the daemon's own readers.
///
/// It keeps a session of its own (client id `<client_id>-input`, same broker,
/// credentials and TLS as the `mqtt:` section), subscribed at QoS 1, because
/// its life is the sources' and not the router's: it stops taking messages
/// before the router drains, and a reload of the routes does not drop it. A
/// broker can wait, so each event is `send` into the buffer (backpressure, no
/// drops). Copies of an event id within `dedup` are dropped; a message that is
/// not of the format is logged with its topic and counted, never routed.
///
/// The messages waiting are read as one group and acknowledged to the broker
/// only once the router has accepted each one's event — routed it and written
/// it ahead to the spool of every spooled action it matched, the group's
/// events together — and the next group is read only then: what the broker
/// counts as delivered survives a crash, and a full buffer slows the broker
/// down instead of piling up in memory. The session is persistent by default,
/// so what was not acknowledged is sent again after a restart.
public struct MQTTInput: SourcePlugin {
    public static let name = "mqtt"
    public static let spec = OptionSpec("events from the broker of the `mqtt:` section", scalarOption: "topic", [
        Option("topic", .string, required: true,
               "topic filter, subscribed at QoS 1 (`tagrouter/+/tag.arrived`); `$share/<group>/<filter>` shares the messages among the routers of a group"),
        Option("format", .choice(InputFormat.allCases.map(\.rawValue)), default: "tagrouter",
               "`tagrouter`: events (format v1) from other nodes, taken as they are; `tasmota`: Tasmota's PN532/RDM6300 SENSOR JSON; `uid`: the payload is a UID or a Home Assistant tag id"),
        Option("reader", .string,
               "the event's reader, a template over the topic (`{{levels.1}}`: its second level, `{{topic}}`: all of it); default: the level of the filter's first `+` (formats tasmota and uid)"),
        Option("node", .string,
               "the event's `node`, a template like `reader`; default: the event's own (tagrouter), the reader's (tasmota), none (uid)"),
        Option("dedup", .duration, default: "10m", "drop a copy of an event id seen within this long (at-least-once delivery brings copies); `0s` keeps every copy"),
        Option("persistent_session", .bool, default: "true",
               "the broker keeps the input's subscription and the messages not yet acknowledged while the daemon is away (restart, crash) and sends them when it is back; needs a `client_id` that stays the same"),
        Option("session_expiry", .duration, default: "24h", "MQTT 5: how long the broker keeps that session while the daemon is away (3.1.1 brokers decide themselves)"),
    ])

    let filter: TopicFilter
    let format: InputFormat
    /// Names the reader of each event from its topic; nil: the event names it (format tagrouter).
    let reader: TopicName?
    /// Names the node of an event that does not name its own; nil: none (format tasmota: the reader).
    let node: TopicName?
    let dedup: Duration
    let dryRun: Bool
    /// How long a stopping input may take to send on what arrived before the stop.
    static let drainLimit: TimeInterval = 10

    /// The input's own session with the broker, subscribed to `filter`.
    public let connection: MQTTConnection
    public let counters = InputCounters()

    public init(options: ConfigValue, context: PluginContext) throws(ConfigErrors) {
        var errors = ConfigErrors()
        format = options.choice("format")
        var filter: TopicFilter?
        switch TopicFilter.parse(options.optionalString("topic") ?? "") {
        case .success(let parsed): filter = parsed
        case .failure(let problem): errors.append(contentsOf: options.error("topic", problem.reason))
        }
        let reader = Self.name(options, "reader", &errors)
        node = Self.name(options, "node", &errors)
        if format == .tagrouter, reader != nil {
            errors.append(contentsOf: options.error("reader", "tagrouter events name their own reader; remove `reader` (or use format uid or tasmota)"))
        }
        if format != .tagrouter, reader == nil, let filter, filter.firstWildcardLevel == nil {
            errors.append(contentsOf: options.error(
                "topic", "the topic has no `+` level to name the reader from; add `reader:` such as \"{{levels.1}}\" or \"front-door\""))
        }
        // Problems of the `mqtt:` section itself are reported once, by the mqtt plugin that owns it.
        let section = try? MQTTSection(context.section(MQTTPlugin.name, spec: MQTTSection.spec), readers: [])
        if section == nil { errors.append(contentsOf: options.error(nil, "the `mqtt:` section has problems (listed with it)")) }
        guard errors.isEmpty, let filter, var settings = section?.settings else { throw errors }
        settings.clientID += "-input"
        settings.availabilityTopic = nil
        settings.birthMessages = []
        settings.subscriptions = [filter.subscription]
        settings.acknowledgeWhenAccepted = true
        settings.persistentSession = options.bool("persistent_session")
        settings.sessionExpiry = options.duration("session_expiry")
        self.filter = filter
        let wildcard = format == .tagrouter ? nil : filter.firstWildcardLevel
        self.reader = reader ?? wildcard.map(TopicName.init(level:))
        dedup = options.duration("dedup")
        dryRun = context.dryRun
        connection = MQTTConnection(settings)
    }

    private static func name(_ options: ConfigValue, _ key: String, _ errors: inout ConfigErrors) -> TopicName? {
        guard let text = options.optionalString(key) else { return nil }
        do {
            return try TopicName(text)
        } catch {
            errors.append(contentsOf: options.error(key, "\(error)"))
            return nil
        }
    }

    /// Connects (not under `--dry-run`), subscribes, and sends each event into
    /// `buffer` until cancelled; then disconnects and still sends what had
    /// arrived: a stop lets its acknowledgement go out, the broker will not resend it.
    public func run(into buffer: EventBuffer) async throws {
        guard !dryRun else { return await Latch().wait() }
        let connection = connection
        connection.start()
        // Out of reach of the input's cancellation, so it can send what arrived before the
        // stop; it ends once the connection has stopped and its messages are sent.
        let consumer = Task { [self] in
            var reception = Reception(input: self)
            for await incoming in connection.incoming {
                guard let event = reception.event(from: incoming.message) else {
                    incoming.acceptance?.release()  // nothing to route: a copy, not a reading, or malformed
                    continue
                }
                // Not sent, the message stays unacknowledged: the connection is stopping, it goes again later.
                guard await buffer.send(event, acceptance: incoming.acceptance) else { return }
            }
        }
        await Latch().wait()
        await connection.stop()
        // When nobody routes any more (the daemon is failing, not stopping) the consumer would wait for room forever.
        let giveUp = DispatchWorkItem { consumer.cancel() }
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.drainLimit, execute: giveUp)
        await consumer.value
        giveUp.cancel()
        var fields = counters.fields
        fields["topic"] = .string(filter.subscription)
        let unsent = connection.received - counters.received
        if unsent > 0 {
            fields["unsent"] = .int(Int64(unsent))
            Log.error("mqtt input stopped before it could send every acknowledged message on; those are lost", fields)
        } else {
            Log.info("mqtt input stopped", fields)
        }
    }
}

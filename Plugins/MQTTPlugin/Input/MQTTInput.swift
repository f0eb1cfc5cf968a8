import FoundationEssentials
import Lifecycle
import SystemKit
import TagCore
import TagRouter
import TagRuntime

/// The `mqtt` input: events from the broker of the `mqtt:` section — other
/// tagrouter nodes, Tasmota readers, anything that publishes UIDs — through the
/// same routes as the daemon's own readers.
///
/// Only what it can trust gets through: format `tagrouter` takes events signed
/// with a key of its `keys` (`EventSignature`), the formats that cannot sign
/// need `trust: broker`; names, groups and "known" come from the local `tags:`
/// only, and an event is bounded, fresh, and never about this daemon's own
/// readers (`InputIntake`). Refusals are counted and logged at most once a
/// minute per reason.
///
/// It keeps a session of its own (client id `<client_id>-input`, or
/// `<client_id>-input-<n>` for entry n of `inputs:` past the first, so no two
/// inputs ever share one; same broker, credentials and TLS as the `mqtt:`
/// section), subscribed at QoS 1, because
/// its life is the sources' and not the router's: it stops taking messages
/// before the router drains, and a reload of the routes does not drop it. A
/// broker can wait, so each event is `send` into the buffer (backpressure, no
/// drops). Copies of an event id any input of the daemon routed are dropped
/// (`SeenEvents`, also across restarts); a message that is
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
               "`tagrouter`: events (format v1) from other nodes, signed (`mqtt.sign`); `tasmota`: Tasmota's PN532/RDM6300 SENSOR JSON; `uid`: the payload is a UID or a Home Assistant tag id"),
        Option("trust", .choice(InputIntake.Trust.allCases.map(\.rawValue)), default: "signed",
               "`signed`: only events signed with a key of `keys` (format tagrouter, `mqtt.protocol: 5`); `broker`: anyone the broker lets publish on the topic — needed by tasmota and uid, which cannot sign (docs/security.md)"),
        Option("keys", .map(.secretFile), "the key ids this input accepts and the file of each key (`{pi-1: /etc/tagrouter/keys/pi-1}`), as the senders' `mqtt.sign` names them"),
        Option("max_age", .duration, default: "30s",
               "format tagrouter: refuse an event whose time is further back (a replay; a message held this long by the broker); events more than 10s ahead of this clock are refused too"),
        Option("reader", .string,
               "the event's reader, a template over the topic (`{{levels.1}}`: its second level, `{{topic}}`: all of it); default: the level of the filter's first `+` (formats tasmota and uid)"),
        Option("node", .string,
               "the event's `node`, a template like `reader`; default: the event's own (tagrouter), the reader's (tasmota), none (uid)"),
        Option("dedup", .duration, default: "10m",
               "format tagrouter: drop a copy of an event id any input of this daemon routed within this long, and always until the event's time plus max_age, also across restarts (`state_dir/seen-events`); `0s` with `trust: broker` keeps every copy"),
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
    /// The ids routed by every input of the daemon (format tagrouter; not under `--dry-run`), nil: none kept.
    let seen: SeenEvents?
    /// The signature, bounds, freshness and local-reader checks.
    let intake: InputIntake
    let dryRun: Bool

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
        let intake = Self.intake(options, format: format, section: section, localReaders: context.readers.map(\.name), &errors)
        let seen = Self.seen(options, format: format, context: context, &errors)
        guard errors.isEmpty, let filter, let intake, var settings = section?.settings else { throw errors }
        settings.clientID += Self.clientIDSuffix(inputIndex: context.inputIndex)
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
        self.seen = seen
        self.intake = intake
        if intake.trust == .broker { trustWarning = options.child("trust")?.mark ?? options.mark } else { trustWarning = nil }
        dryRun = context.dryRun
        connection = MQTTConnection(settings)
    }

    /// The counters, for `status` and the metrics.
    public var counts: [InputReport.Count] { counters.all }

    /// Where `trust: broker` is written: `check-config` warns about it.
    let trustWarning: SourceMark?

    public var warnings: [ConfigError] {
        guard let trustWarning else { return [] }
        return [ConfigError(
            mark: trustWarning, path: "inputs[].mqtt.trust",
            message: "`trust: broker`: anyone who may publish on \(filter.subscription) can run your routes; "
                + "restrict that topic with the broker's ACLs to your devices' users or TLS client certificates (docs/security.md)",
            isWarning: true)]
    }

    /// `-input` for the first entry of `inputs:`, `-input-<n>` for entry n: one client id per input, stable across restarts.
    static func clientIDSuffix(inputIndex: Int?) -> String {
        guard let inputIndex, inputIndex > 0 else { return "-input" }
        return "-input-\(inputIndex)"
    }

    /// The intake checks of the options, or nil with the problems in `errors`.
    private static func intake(
        _ options: ConfigValue, format: InputFormat, section: MQTTSection?, localReaders: [String], _ errors: inout ConfigErrors
    ) -> InputIntake? {
        let trust: InputIntake.Trust = options.choice("trust")
        var keys: [String: EventSignature.Key] = [:]
        for (id, file) in options.child("keys")?.members ?? [] {
            if let problem = EventSignature.problem(withKeyID: id) { errors.append(contentsOf: options.error("keys", problem)) }
            guard let secret = file.fileContents else { continue }  // an unreadable file is reported by the validator
            if let problem = EventSignature.problem(withSecret: secret) {
                errors.append(ConfigError(mark: file.mark, path: file.path, message: problem))
            }
            keys[id] = EventSignature.Key(id: id, secret: Array(secret.utf8))
        }
        let maxAge = options.duration("max_age")
        if trust == .signed {
            if format != .tagrouter {
                errors.append(contentsOf: options.error(
                    options.has("trust") ? "trust" : "format",
                    "format \(format.rawValue) cannot carry a signature; set `trust: broker` once the broker lets only your devices publish on this topic (ACLs, TLS client certificates; docs/security.md)"))
            } else if options.child("keys")?.members.isEmpty ?? true {
                errors.append(contentsOf: options.error(
                    nil, "format tagrouter takes signed events only: list the senders' keys (`keys: {pi-1: /etc/tagrouter/keys/pi-1}`, each sender with `mqtt.sign`), or set `trust: broker`"))
            }
            if format == .tagrouter, section.map({ $0.settings.protocolVersion != .v5 }) == true {
                errors.append(contentsOf: options.error(nil, "signed events carry their signature in MQTT 5 user properties; set `mqtt.protocol: 5`"))
            }
            if format == .tagrouter, options.duration("dedup") <= .zero {
                errors.append(contentsOf: options.error("dedup", "must be more than 0s with `trust: signed`: it is what refuses a replayed event"))
            }
        } else if options.has("keys") {
            errors.append(contentsOf: options.error("keys", "`trust: broker` checks no signature; remove `keys` or set `trust: signed`"))
        }
        if maxAge <= .zero { errors.append(contentsOf: options.error("max_age", "must be more than 0s")) }
        return InputIntake(trust: trust, keys: keys, maxAge: format == .tagrouter ? maxAge : nil, localReaders: Set(localReaders))
    }

    /// The record of routed event ids this input shares with the daemon's others: format tagrouter
    /// only (the other formats' events get their ids here, so no copy can match), not under `--dry-run`.
    private static func seen(_ options: ConfigValue, format: InputFormat, context: PluginContext, _ errors: inout ConfigErrors) -> SeenEvents? {
        guard format == .tagrouter, options.duration("dedup") > .zero, !context.dryRun else { return nil }
        do {
            return try SeenEvents.shared(stateDirectory: context.stateDirectory)
        } catch {
            errors.append(contentsOf: options.error(
                nil, "state_dir cannot keep the event ids this input routed, against replays: \(error) (docs/security.md)"))
            return nil
        }
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

    /// It ends by itself at the graceful shutdown (see `run(into:)`).
    public static var finishesGracefully: Bool { true }

    /// Connects (not under `--dry-run`), subscribes, and sends each event into
    /// `buffer`. At the graceful shutdown (`GracefulShutdown`) it reads nothing
    /// more, still sends what had arrived, and disconnects once the router has
    /// accepted it (its acknowledgements go out with the DISCONNECT); then
    /// returns. Cancellation means stop now: it closes the connection without
    /// acknowledging what was not accepted — the broker sends that again to the
    /// next session (`persistent_session`), or, without one, it is lost:
    /// counted (`lost`) and logged.
    public func run(into buffer: EventBuffer) async throws {
        guard !dryRun else { return await GracefulShutdown.wait() }
        let connection = connection
        connection.start()
        let handedOn = await withTaskGroup(of: Int.self) { group in
            group.addTask {
                await GracefulShutdown.wait()  // or cancelled
                // Ends `incoming` once the connection thread has ended.
                await withTaskCancellationHandler { await connection.stop() } onCancel: { connection.abandon() }
                return 0
            }
            group.addTask { await self.handOn(connection.incoming, into: buffer) }
            return await group.reduce(0, +)
        }
        var fields = counters.fields
        fields["topic"] = .string(filter.subscription)
        let unsent = connection.received - handedOn
        guard unsent > 0 else { return Log.info("mqtt input stopped", fields) }
        guard connection.settings.persistentSession else {
            counters.countLost(unsent)
            fields["lost"] = .int(Int64(unsent))
            return Log.error("mqtt input stopped before it could send every message on; without a persistent session those are lost", fields)
        }
        fields["unsent"] = .int(Int64(unsent))
        Log.warning("mqtt input stopped before it could send every message on; they were not acknowledged, the broker sends them again to the next session", fields)
    }

    /// Sends the event of each message into `buffer` until `incoming` ends, the
    /// buffer is finished or the task is cancelled; returns how many messages
    /// it took care of (sent, or dropped as nothing to route).
    private func handOn(_ incoming: MQTTIncomingStream, into buffer: EventBuffer) async -> Int {
        var reception = Reception(input: self)
        defer { reception.close() }
        var handled = 0
        for await incoming in incoming {
            guard let event = reception.event(from: incoming.message) else {
                incoming.acceptance?.release()  // nothing to route: a copy, not a reading, or malformed
                handled += 1
                continue
            }
            // Not sent, the message stays unaccepted: the buffer is finished, or the input stops now.
            guard await buffer.send(event, acceptance: reception.recording(event, upstream: incoming.acceptance)) else { break }
            handled += 1
        }
        return handled
    }
}

import FoundationEssentials
import Lifecycle
import TagCore
import TagRouter

/// The `mqtt` action plugin: one shared broker connection (the `mqtt:`
/// section), one `MQTTAction` per `- mqtt:` in the routes, Home
/// Assistant discovery for the configured readers, and write requests
/// (`commands: {token_file: …}`).
public struct MQTTPlugin: ActionPlugin {
    public static let name = "mqtt"
    public static let sectionSpec: OptionSpec? = MQTTSection.spec
    public static let actionSpec = MQTTAction.spec
    /// Kept by a reload while `mqtt:` (and the reader names) stay the same: the connection stays up.
    public static let isKeptAcrossReloads = true

    let section: MQTTSection
    let readers: [String]
    let dryRun: Bool
    /// The shared connection every action of this config publishes through.
    public let connection: MQTTConnection
    /// What lies on each reader, for HA's presence entities; nil without discovery.
    let presence: HomeAssistantPresence?
    /// Write requests on `<base_topic>/<reader>/write`; nil unless `commands:` is set.
    let commands: MQTTWriteCommands?
    /// Feedback requests on `<base_topic>/<reader>/feedback`, with the same token; nil unless `commands:` is set.
    let feedback: MQTTFeedbackCommands?

    public init(section: ConfigValue, context: PluginContext) throws(ConfigErrors) {
        readers = context.readers.map(\.name)
        self.section = try MQTTSection(section, readers: readers)
        dryRun = context.dryRun
        connection = MQTTConnection(self.section.settings)
        let readers = readers
        presence = self.section.discovery.map { HomeAssistantPresence(discovery: $0, readers: readers) }
        let section = self.section
        commands = section.commandToken.map {
            MQTTWriteCommands(baseTopic: section.baseTopic, readers: readers, allowLock: section.allowLock, token: $0, jobs: context.tagJobs)
        }
        feedback = section.commandToken.map { MQTTFeedbackCommands(baseTopic: section.baseTopic, readers: readers, token: $0, board: context.feedback) }
    }

    public func makeAction(_ options: ConfigValue, route: String) throws(ConfigErrors) -> any Action {
        try MQTTAction(options, connection: connection, baseTopic: section.baseTopic, hold: section.hold, signingKey: section.signingKey)
    }

    /// The broker connection as of now, for `tagrouter status`.
    public var connectionReport: ConnectionReport? {
        guard !dryRun else { return nil }
        let (status, since, problem) = connection.report
        let state: String
        switch status {
        case .idle: state = "idle"
        case .connecting: state = "connecting"
        case .connected: state = "connected"
        case .disconnected: state = "disconnected"
        case .stopped: state = "stopped"
        }
        return ConnectionReport(
            plugin: Self.name, target: connection.settings.broker, state: state, connected: status == .connected,
            since: since, problem: status == .connected ? nil : problem)
    }

    /// With discovery on: a warning when no route publishes a reader's scans to the
    /// topic its tag scanner announces (Home Assistant would never see a scan).
    public func warnings(routes: [Route]) -> [ConfigError] {
        guard let discovery = section.discovery, let mark = section.discoveryMark else { return [] }
        let unpublished = readers.filter { reader in
            let announced = discovery.eventTopic(reader: reader, kind: .tagArrived)
            let delivery = Delivery(event: TagEvent(kind: .tagArrived, reader: reader), route: "")
            return !routes.contains { route in
                route.actions.contains { ($0.action as? MQTTAction)?.message(for: delivery)?.topic == announced }
            }
        }
        guard !unpublished.isEmpty else { return [] }
        let topics = unpublished.map { discovery.eventTopic(reader: $0, kind: .tagArrived) }.joined(separator: ", ")
        return [ConfigError(
            mark: mark, path: "mqtt.home_assistant.discovery",
            message: "Home Assistant listens for scans on \(topics), but no route publishes there; add the route "
                + "`- {name: home-assistant, match: {event: [tag.arrived, tag.removed]}, actions: [mqtt]}`",
            isWarning: true)]
    }

    /// Keeps the connection (not under `--dry-run`) until cancelled, then says
    /// `offline` and disconnects. With discovery on, publishes every reader's
    /// presence (empty: nothing was seen yet) and answers HA's birth message;
    /// with commands on, answers write requests: refusals at once, and the one
    /// request per reader that waits for a tag in a task of its own, so it holds up
    /// nothing else (a discarding group, so the answered ones are not kept while
    /// the connection lives).
    public func run() async {
        guard !dryRun else { return await Latch().wait() }
        let (connection, readers, hold, presence, commands, feedback) = (connection, readers, section.hold, presence, commands, feedback)
        if let presence { for message in presence.messages { _ = connection.enqueue(message, hold: hold) } }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await connection.run() }
            guard presence != nil || commands != nil else { return }
            group.addTask {
                await withDiscardingTaskGroup { requests in
                    // `incoming` ends when the connection has stopped.
                    for await incoming in connection.incoming {
                        let message = incoming.message
                        if let commands, let reader = commands.reader(of: message.topic) {
                            switch commands.handle(message, reader: reader) {
                            case .dropped:
                                break
                            case .answer(let answer):
                                _ = connection.enqueue(answer, hold: hold)
                            case .perform(let perform):
                                requests.addTask { _ = connection.enqueue(await perform(), hold: hold) }
                            }
                        } else if let feedback, let reader = feedback.reader(of: message.topic) {
                            feedback.apply(message, reader: reader)
                        } else if let discovery = presence?.discovery {
                            let replies = discovery.replies(to: message, readers: readers) + (discovery.isBirth(message) ? presence?.messages ?? [] : [])
                            for reply in replies { _ = connection.enqueue(reply, hold: hold) }
                        }
                    }
                    requests.cancelAll()
                }
            }
        }
    }

    /// Keeps each discovered reader's presence and publishes it when it changes; publishes
    /// each tap, hold and removal for the reader's event entity and device triggers.
    public func observe(_ event: TagEvent) {
        guard !dryRun, let presence else { return }
        if let message = presence.message(after: event) { _ = connection.enqueue(message, hold: section.hold) }
        if let gesture = presence.discovery.gestureMessage(event) { _ = connection.enqueue(gesture, hold: section.hold) }
    }
}

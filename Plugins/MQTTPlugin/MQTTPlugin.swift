import TagCore
import TagRouter

/// The `mqtt` action plugin: one shared broker connection (the `mqtt:`
/// section), one `MQTTAction` per `- mqtt:` in the routes, and Home
/// Assistant discovery for the configured readers.
public struct MQTTPlugin: ActionPlugin {
    public static let name = "mqtt"
    public static let sectionSpec: OptionSpec? = MQTTSection.spec
    public static let actionSpec = MQTTAction.spec

    let section: MQTTSection
    let readers: [String]
    let dryRun: Bool
    /// The shared connection every action of this config publishes through.
    public let connection: MQTTConnection
    /// What lies on each reader, for HA's presence entities; nil without discovery.
    let presence: HomeAssistantPresence?

    public init(section: ConfigValue?, context: PluginContext) throws(ConfigErrors) {
        readers = context.readers.map(\.name)
        self.section = try MQTTSection(section, readers: readers)
        dryRun = context.dryRun
        connection = MQTTConnection(self.section.settings)
        let readers = readers
        presence = self.section.discovery.map { HomeAssistantPresence(discovery: $0, readers: readers) }
    }

    public func makeAction(_ options: ConfigValue, route: String) throws(ConfigErrors) -> any Action {
        try MQTTAction(options, connection: connection, baseTopic: section.baseTopic, hold: section.hold)
    }

    /// Connects (not under `--dry-run`) and, with discovery on, publishes every
    /// reader's presence (empty: nothing was seen yet) and answers HA's birth message.
    public func start() async {
        guard !dryRun else { return }
        connection.start()
        guard let presence else { return }
        let (connection, readers, hold) = (connection, readers, section.hold)
        for message in presence.messages { _ = connection.enqueue(message, hold: hold) }
        Task {
            for await message in connection.incoming {
                let discovery = presence.discovery
                let replies = discovery.replies(to: message, readers: readers) + (discovery.isBirth(message) ? presence.messages : [])
                for reply in replies { _ = connection.enqueue(reply, hold: hold) }
            }
        }
    }

    /// Keeps each discovered reader's presence and publishes it when it changes.
    public func observe(_ event: TagEvent) {
        guard !dryRun, let message = presence?.message(after: event) else { return }
        _ = connection.enqueue(message, hold: section.hold)
    }

    /// Says `offline` and disconnects.
    public func stop() async {
        await connection.stop()
    }
}

import Foundation
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

    public init(section: ConfigValue?, context: PluginContext) throws(ConfigErrors) {
        readers = context.readers.map(\.name)
        self.section = try MQTTSection(section, readers: readers)
        dryRun = context.dryRun
        connection = MQTTConnection(self.section.settings)
    }

    public func makeAction(_ options: ConfigValue, route: String) throws(ConfigErrors) -> any Action {
        try MQTTAction(options, connection: connection, baseTopic: section.baseTopic, hold: section.hold)
    }

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

    /// Keeps the connection (not under `--dry-run`) until cancelled, then says
    /// `offline` and disconnects; with discovery on, answers HA's birth message.
    public func run() async {
        guard !dryRun else { return await Latch().wait() }
        let (connection, readers, hold) = (connection, readers, section.hold)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await connection.run() }
            guard let discovery = section.discovery else { return }
            group.addTask {
                // `incoming` ends when the connection has stopped.
                for await message in connection.incoming {
                    for reply in discovery.replies(to: message, readers: readers) { _ = connection.enqueue(reply, hold: hold) }
                }
            }
        }
    }
}

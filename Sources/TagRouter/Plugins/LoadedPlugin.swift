import OrderedJSON

/// One plugin instance a config was built with, and what it was built from.
///
/// A reload keeps the instance of a plugin that allows it
/// (`ActionPlugin.isKeptAcrossReloads`) — and with it its running service, such
/// as the MQTT connection — when the new config gives the plugin the same section
/// (`ConfigValue.settings`, secrets as read when the instance was built) in the same context: state directory, dry
/// run, config directory and environment, and the readers' *names* (other
/// reader settings may change under a kept plugin). The new config's actions
/// are then made by the kept instance. Its identity (this object) is what
/// `RoutingService` compares to know which services to stop and start.
public final class LoadedPlugin: Sendable {
    /// The plugin's registered name (`mqtt`).
    public let name: String
    public let plugin: any ActionPlugin
    /// Its section's settings when it was built.
    let settings: JSONValue
    let context: PluginContext

    init(name: String, plugin: any ActionPlugin, section: ConfigValue, context: PluginContext) {
        self.name = name
        self.plugin = plugin
        self.settings = section.settings
        self.context = context
    }

    /// True when a config asking for plugin `name` with `section` in `context` can use this instance.
    func serves(_ name: String, section: ConfigValue, context: PluginContext) -> Bool {
        name == self.name && section.settings == settings && Self.sameRun(self.context, context)
    }

    /// What a plugin may depend on besides its section.
    private static func sameRun(_ one: PluginContext, _ other: PluginContext) -> Bool {
        one.stateDirectory == other.stateDirectory && one.dryRun == other.dryRun
            && one.readers.map(\.name) == other.readers.map(\.name)
            && one.config.directory == other.config.directory && one.config.environment == other.config.environment
            && one.config.missingSecretsAreWarnings == other.config.missingSecretsAreWarnings
    }
}

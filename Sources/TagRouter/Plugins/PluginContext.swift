import TagCore
import TagRuntime

/// What a plugin may need to know about the run it is built for.
public struct PluginContext: Sendable {
    /// Where plugins may keep state across restarts (created on demand).
    public var stateDirectory: String
    /// Environment and config directory, for secrets and relative paths.
    public var config: ConfigContext
    /// True under `--dry-run` and `check-config`: build everything, connect to nothing.
    public var dryRun: Bool
    /// The configured readers (Home Assistant discovery announces one scanner per reader).
    public var readers: [ReaderConfig]
    /// The running daemon's readers, for plugins that read or write tags on request
    /// (MQTT `commands`); nil outside `tagrouter run` (`check-config`, an events file).
    public var tagJobs: (any TagJobRunner)?
    /// The validated top-level plugin sections, defaults filled in, by name
    /// (`mqtt`): what a source plugin shares with an action plugin (the broker).
    public var sections: [String: ConfigValue]
    /// The index in `inputs:` of the input being built (a source plugin's own
    /// names, such as an MQTT input's client id, derive from it); nil otherwise.
    public var inputIndex: Int?
    /// Where the `log` action writes its lines (the daemon's stdout unless its host gives another).
    public var output: LineOutput
    /// Where a plugin tells a reader how a tap ended (the `feedback` action, MQTT feedback commands): the daemon's board.
    public var feedback: FeedbackBoard

    public init(
        stateDirectory: String, config: ConfigContext = ConfigContext(), dryRun: Bool = false, readers: [ReaderConfig] = [],
        tagJobs: (any TagJobRunner)? = nil, sections: [String: ConfigValue] = [:], output: LineOutput = .standardOutput,
        feedback: FeedbackBoard = FeedbackBoard()
    ) {
        self.stateDirectory = stateDirectory
        self.config = config
        self.dryRun = dryRun
        self.readers = readers
        self.tagJobs = tagJobs
        self.sections = sections
        self.output = output
        self.feedback = feedback
    }

    /// The section of plugin `name`; all defaults when this context has none for it (one made by a test).
    public func section(_ name: String, spec: OptionSpec) -> ConfigValue {
        sections[name] ?? ConfigValue.defaults(of: spec, path: name, context: config)
    }
}

import Lifecycle
import TagCore

/// A kind of action (`mqtt`, `shell`, `log`…), listed once in the registry.
/// The loader builds one instance per config load — it owns anything the
/// actions share, such as a broker connection — and asks it for one `Action`
/// per `- <name>: <options>` in the routes. As a `Service`, its `run()` is the
/// plugin's long-lived part (a broker connection), run beside the action workers
/// and cancelled after they have delivered what they hold.
public protocol ActionPlugin: Service {
    /// The key users write in `- <name>: <options>`, and of its top-level section.
    static var name: String { get }
    /// Whether a reload may keep an instance whose section and context did not
    /// change (`LoadedPlugin`): its `run()` goes on and it makes the new config's
    /// actions too. Say true only when that is right — no per-config state that
    /// `run()` reads once at its start (the exec plugin's list of programs).
    /// Default false: a new instance on every reload.
    static var isKeptAcrossReloads: Bool { get }
    /// The top-level section the plugin owns (`mqtt:`, `open:`); nil (the default) if none.
    static var sectionSpec: OptionSpec? { get }
    /// The options of one action; its `scalarOption` declares the short form (`- open: "{{uri}}"`).
    static var actionSpec: OptionSpec { get }
    /// Builds the plugin from its validated section, defaults filled in (absent
    /// from the config: every key reads as its default; a plugin without
    /// `sectionSpec` gets a section that declares no keys); throws every
    /// problem the spec could not catch, via `ConfigValue.error`.
    init(section: ConfigValue, context: PluginContext) throws(ConfigErrors)
    /// Builds one action from its validated options (defaults applied by the getters).
    func makeAction(_ options: ConfigValue, route: String) throws(ConfigErrors) -> any Action
    /// What only shows across the whole config (Home Assistant discovery announcing
    /// a topic no route publishes to), as warnings. Default: none.
    func warnings(routes: [Route]) -> [ConfigError]
    /// Sees every event the router dispatches, matched or not, before any action
    /// (state a plugin keeps, such as a reader's presence). Must not block. Default: nothing.
    func observe(_ event: TagEvent)
    /// The plugin's link to an outside service (a broker), as of now, for
    /// `status` and the metrics; nil (the default) for a plugin without one.
    var connectionReport: ConnectionReport? { get }
}

extension ActionPlugin {
    public static var sectionSpec: OptionSpec? { nil }
    public static var isKeptAcrossReloads: Bool { false }
    public var connectionReport: ConnectionReport? { nil }
    /// Nothing long-lived: waits until cancelled.
    public func run() async throws { await Latch().wait() }
    public func warnings(routes: [Route]) -> [ConfigError] { [] }
    public func observe(_ event: TagEvent) {}

    /// The section the plugin gets when the config has none: every key reads
    /// as its default (a plugin without `sectionSpec`: a section of no keys).
    public static func defaultSection(context: ConfigContext = ConfigContext()) -> ConfigValue {
        ConfigValue.defaults(of: sectionSpec ?? OptionSpec("no settings", []), path: name, context: context)
    }
}

/// One configured action. The router gives each its own bounded queue and task,
/// so `perform` may take its time without holding back other actions; it is
/// never called concurrently for the same action.
public protocol Action: Sendable {
    /// Does the work for one delivery. Throw `.retryable` for a target that may
    /// recover (the delivery policy retries, then spools) and `.permanent` for
    /// one that will not (logged, counted, dropped).
    func perform(_ delivery: Delivery) async throws(ActionError)
    /// What `perform` would do, in one line, for `--dry-run` and
    /// `check-config --explain` (e.g. `publish to home/nfc/door qos 1`).
    func describe(_ delivery: Delivery) -> String
}

extension Action {
    public func describe(_ delivery: Delivery) -> String { "run" }
}

import TagCore

/// A loaded, validated config: readers, plugin instances and compiled routes.
public struct RouterConfig: Sendable {
    /// The file it came from, as named by the user (or `embedded default`).
    public var file: String
    public var readers: [ReaderConfig]
    /// Where spools and plugin state live.
    public var stateDirectory: String
    /// How long `SIGTERM` waits for queues to drain before spooling the rest.
    public var shutdownTimeout: Duration
    /// One instance per plugin the config uses or configures.
    public var plugins: [any ActionPlugin]
    public var routes: [Route]
    /// The named tags (`tags:`); events are resolved against it before routes match.
    public var tags: TagRegistry
    /// What is allowed but probably not meant (a named tag no route selects), for `check-config`.
    public var warnings: [ConfigError]

    /// Every action of every route, in file order.
    public var actions: [ConfiguredAction] { routes.flatMap(\.actions) }
}

import SecureTags
import TagCore

/// A loaded, validated config: readers, plugin instances and compiled routes.
public struct RouterConfig: Sendable {
    /// The file it came from, as named by the user (or `embedded default`).
    public var file: String
    public var readers: [ReaderConfig]
    /// Event sources besides the readers (`inputs:`), started with the daemon.
    public var inputs: [ConfiguredInput]
    /// Where spools and plugin state live.
    public var stateDirectory: String
    /// How long `SIGTERM` waits for queues to drain before spooling the rest.
    public var shutdownTimeout: Duration
    /// Events the daemon's buffer holds between the sources and the router.
    public var eventBuffer: Int
    /// One instance per plugin the config uses or configures.
    public private(set) var plugins: [any ActionPlugin]
    /// The same instances with what each was built from: a reload keeps those whose settings did not change.
    public private(set) var loadedPlugins: [LoadedPlugin]
    public var routes: [Route]
    /// The named tags (`tags:`); events are resolved against it before routes match.
    public var tags: TagRegistry
    /// The metrics listener and textfile (`metrics:`); nil when the section is absent.
    public var metrics: MetricsSettings?
    /// The SUN check of tag arrivals (`sun:`); nil when the section is absent.
    public var sun: SUNCheckpoint?
    /// The password write requests protect NTAG 21x tags with and write protected ones with (`tag_password_file`).
    public var tagPassword: TagPassword?
    /// What loads but deserves a look, sorted by position (a named tag no route
    /// selects, HA discovery with no route publishing): `check-config` prints them, `run` logs them.
    public var warnings: [ConfigError] = []

    init(
        file: String, readers: [ReaderConfig], inputs: [ConfiguredInput], stateDirectory: String, shutdownTimeout: Duration, eventBuffer: Int,
        plugins: [LoadedPlugin], routes: [Route], tags: TagRegistry, metrics: MetricsSettings?, sun: SUNCheckpoint? = nil
    ) {
        self.file = file
        self.readers = readers
        self.inputs = inputs
        self.stateDirectory = stateDirectory
        self.shutdownTimeout = shutdownTimeout
        self.eventBuffer = eventBuffer
        self.plugins = plugins.map(\.plugin)
        self.loadedPlugins = plugins
        self.routes = routes
        self.tags = tags
        self.metrics = metrics
        self.sun = sun
    }

    /// Every action of every route, in file order.
    public var actions: [ConfiguredAction] { routes.flatMap(\.actions) }
}

import DaemonControl
import DaemonHTTP
import Lifecycle
import OrderedJSON
import SystemKit
import TagCore
import TagReader
import TagRouter
import TagRuntime

/// The tagrouter daemon as a value a host runs: `tagrouter run`, or a test in
/// process. `init` loads the config and builds every part (a bad config, an
/// unreadable events file or a `--control` path that cannot be used fail here,
/// before anything runs); `run()` runs the readers, inputs, router and control
/// plane as one `ServiceGroup` until the shutdown; `reload()` loads the config
/// again, one reload at a time (a bad new config is rejected and the old one
/// keeps running); `shutdown()` drains the queues, spools the rest and ends `run()`.
public final class Daemon: Sendable {
    /// The config as loaded at the start (a reload changes what `routing` runs, not this).
    public let config: RouterConfig
    /// What the daemon does, as the control socket, the metrics and the live page see it.
    public let observer: DaemonObserver
    /// Between the sources and the router: a host may offer events here besides the sources.
    public let buffer: EventBuffer
    /// Where the host hands events in (`DaemonOptions.hostEvents`); nil otherwise.
    public let host: HostEvents?
    /// Where this daemon's router, plugins and host sound tell its readers how a tap ended: its own, so two daemons
    /// in one process whose readers share a name show each other nothing.
    public let feedback: FeedbackBoard
    private let file: ConfigFile
    private let routing: RoutingService
    private let services: ServiceGroup
    private let serialReload: SerialReload
    private let tapFeedback: TapFeedback?

    public init(configuration options: DaemonOptions) throws(DaemonError) {
        // By its absolute path: `status`, the log and reloads name the same file from any folder.
        let file = options.config.absolute
        // Read and write jobs (control socket, MQTT commands) reach the readers through the board.
        let jobs = ReaderJobBoard()
        let feedback = FeedbackBoard()
        let runsReaders = options.eventsFrom == nil && options.runsReaders
        let loader = ConfigLoader(
            registry: BuiltinPlugins.registry, dryRun: options.dryRun, stateDirectory: options.stateDirectory,
            tagJobs: runsReaders ? jobs : nil, output: options.output, feedback: feedback)
        let config: RouterConfig
        do throws(ConfigErrors) { config = try file.load(loader) } catch { throw .config(error, file: file.name) }
        options.loaded?(config)
        jobs.use(tagPassword: config.tagPassword)
        let buffer = EventBuffer(capacity: config.eventBuffer)
        let observer = DaemonObserver(eventBuffer: buffer, runsReaders: runsReaders)
        let routing = RoutingService(config: config, events: buffer, dryRun: options.dryRun, observer: observer)
        let host = options.hostEvents && options.eventsFrom == nil ? HostEvents(buffer: buffer) : nil
        let parts = try Self.sources(options, config: config, buffer: buffer, jobs: jobs, feedback: feedback, host: host)
        let systemd = options.notifiesSystemd ? DaemonSystemd(observer: observer, monitor: parts.progress) : nil
        // Each tap's outcome goes back to its reader's LEDs and buzzer, and to the host's sound (readers[].feedback).
        // Only when a reader can show or play it: watching makes the router build a live record for every event and action.
        let showsOutcomes = config.readers.contains { BuiltinPlugins.readers.driver(for: $0.device).showsOutcomes($0) || (parts.sound != nil && $0.feedback.sound != nil) }
        let reload = SerialReload { [readers = parts.readers, sound = parts.sound] in
            systemd?.reloading()
            defer { systemd?.reloaded() }
            return await Self.reload(file, loader: loader, started: config, routing: routing, observer: observer, readers: readers, sound: sound, jobs: jobs)
        }
        self.file = file
        self.feedback = feedback
        self.config = config
        self.buffer = buffer
        self.host = host
        self.observer = observer
        self.routing = routing
        serialReload = reload
        tapFeedback = showsOutcomes ? TapFeedback(observer: observer, board: feedback) : nil
        // Stopped in this order: systemd hears STOPPING=1, the sources stop, the router drains what they sent,
        // then control and the signals.
        var members: [ServiceGroup.Member] = systemd.map { [.init("systemd", $0)] } ?? []
        members += [
            .init("sources", DaemonSources(sources: parts.sources, buffer: buffer), stop: .graceful),
            .init("router", routing, stop: .drain),
        ]
        if let sound = parts.sound { members.append(.init("sound", sound)) }
        // The live page and `tags learn`/`rename`/`forget` (through the control socket) change the named tags the way
        // `tags` does itself, with the daemon's rights, then reload as SIGHUP does.
        let namer = file.path.map { DaemonTagNamer(config: $0, reload: { reload.waiting() }) }
        var tagNames: TagNamesEditor?
        if let namer { tagNames = { edit, origin in namer.edit(edit, origin: origin) } }
        if let control = options.control,
            let server = try Self.controlServer(control, observer: observer, jobs: parts.readers?.jobs, tagNames: tagNames, reload: { reload.waiting() }) {
            members.append(.init("control", server))
        }
        if let metrics = config.metrics {
            do throws(HTTPError) { members.append(.init("metrics", try MetricsService(metrics, observer: observer, namer: namer))) } catch { throw .runtime(error.description) }
        }
        if let signals = options.signals { members.append(.init("signals", DaemonSignals(signals: signals, reload: { _ = await reload() }))) }
        // The router drains within shutdown_timeout, then its plugins stop (an exec plugin has 5 s, then
        // SIGTERM and 2 s more): past that the group cancels it, and 5 s after a cancellation it goes on
        // without the member, named in the log. No stop outlasts shutdown_timeout + 20 s per member.
        services = ServiceGroup(members, deadlines: .init(graceful: config.shutdownTimeout + .seconds(15), cancellation: .seconds(5)))
    }

    /// Runs until the shutdown (`shutdown()`, a SIGTERM, the end of the events file), then logs the actions' counters.
    public func run() async throws(DaemonError) {
        defer { tapFeedback?.stop() }
        Log.info("router started", Self.summary(config, file: file.name))
        do {
            try await services.run()
        } catch {
            throw .runtime("the daemon stopped: \(error)")
        }
        var counters = JSONObject()
        for (id, count) in routing.counters.sorted(by: { $0.key < $1.key }) {
            counters[id] = JSONValue.object(JSONObject([
                "delivered": .int(Int64(count.delivered)), "failed": .int(Int64(count.failed)), "dropped": .int(Int64(count.dropped)),
                "spooled": .int(Int64(count.spooled)), "retried": .int(Int64(count.retried)),
            ]))
        }
        Log.info("stopped", JSONObject(["actions": .object(counters), "event_buffer_dropped": .int(Int64(buffer.dropped))]))
    }

    /// Loads the config again and runs it (after the reloads asked before it); the outcome says what changed or why not.
    /// It holds no thread while it waits for the file to settle or reads it.
    @discardableResult
    public func reload() async -> ReloadOutcome { await serialReload() }

    /// Begins the graceful shutdown: the sources stop, the router drains within `shutdown_timeout`; `run()` then returns.
    public func shutdown() { services.shutdown() }

    /// Each action's counters, by action id (`route.index.plugin`).
    public var counters: [String: ActionCounters] { routing.counters }

    /// The config the router runs now (the last one loaded).
    public var runningConfig: RouterConfig { routing.latestConfig }

    /// The daemon's sources: the readers (unless the host turned them off), the configured inputs and the host's events,
    /// or only the events file; the host's sound and the readers' progress (the systemd watchdog asks it).
    private static func sources(
        _ options: DaemonOptions, config: RouterConfig, buffer: EventBuffer, jobs: ReaderJobBoard, feedback: FeedbackBoard, host: HostEvents?
    ) throws(DaemonError) -> (sources: [any Service], readers: ReaderSource?, sound: HostSound?, progress: ProgressMonitor) {
        let progress = ProgressMonitor()
        if let eventsFrom = options.eventsFrom {
            let input: EventsInput
            do throws(EventsInput.Unreadable) { input = try EventsInput(path: eventsFrom) } catch { throw .usage(error.description) }
            return ([ConfiguredInput(kind: EventsInput.name, path: "--events-from", source: input).service(into: buffer)], nil, nil, progress)
        }
        let inputs = config.inputs.map { $0.service(into: buffer) } + (host.map { [$0.service] } ?? [])
        guard options.runsReaders else { return (inputs, nil, nil, progress) }
        // The host's sound plays at the readers this daemon runs (not for events read from a file).
        let sound = HostSound(config.readers, board: feedback)
        let readers = ReaderSource(
            config.readers, drivers: BuiltinPlugins.readers, buffer: buffer, jobs: jobs, feedback: feedback, monitor: progress,
            arrived: { sound.arrived(reader: $0) })
        return ([readers] + inputs, readers, sound, progress)
    }

    /// One reload (serialized by the caller): the new config runs, or the old one stays and the problems are returned.
    private static func reload(
        _ file: ConfigFile, loader: ConfigLoader, started: RouterConfig, routing: RoutingService, observer: DaemonObserver,
        readers: ReaderSource?, sound: HostSound?, jobs: ReaderJobBoard
    ) async -> ReloadOutcome {
        let next: RouterConfig
        do throws(ConfigErrors) {
            // Plugins whose settings did not change are kept: their connections stay up.
            next = try await file.reload(loader.keeping(routing.latestConfig.loadedPlugins), running: routing.latestConfig)
        } catch {
            let problems = error.lines()
            Log.error("reload rejected; the running config stays", JSONObject(["file": .string(file.name), "problems": .array(problems.map(JSONValue.string))]))
            observer.rejected(error)
            return .rejected(problems: problems)
        }
        jobs.use(tagPassword: next.tagPassword)
        readers?.reconfigure(next.readers)
        sound?.reconfigure(next.readers)
        routing.reload(to: next)
        Log.info("config reloaded", summary(next, file: file.name))
        // The metrics listener and file keep what they started with.
        let notes = next.metrics == started.metrics ? [] : ["metrics: changed; the new settings take effect at the next restart (systemctl restart tagrouter)"]
        for note in notes { Log.warning(note, JSONObject(["file": .string(file.name)])) }
        return .reloaded(readers: next.readers.count, routes: next.routes.count, notes: notes)
    }

    /// The control socket's server; when the standard path cannot be used the
    /// daemon runs without one (and says so), when a given `--control` cannot, it does not start.
    private static func controlServer(
        _ control: (path: String, explicit: Bool), observer: DaemonObserver, jobs: ReaderJobBoard?, tagNames: TagNamesEditor?,
        reload: @escaping @Sendable () -> ReloadOutcome
    ) throws(DaemonError) -> ControlServer? {
        do {
            let server = try ControlServer(path: control.path, observer: observer, jobs: jobs, tagNames: tagNames, reload: reload)
            Log.info("control socket ready", JSONObject(["path": .string(control.path)]))
            return server
        } catch {
            guard !control.explicit else { throw .runtime(error.description) }
            Log.warning("running without a control socket", JSONObject(["path": .string(control.path), "reason": .string(error.description)]))
            return nil
        }
    }

    private static func summary(_ config: RouterConfig, file: String) -> JSONObject {
        JSONObject([
            "config": .string(file), "readers": .int(Int64(config.readers.count)), "inputs": .int(Int64(config.inputs.count)), "routes": .int(Int64(config.routes.count)),
            "actions": .int(Int64(config.actions.count)), "state_dir": .string(config.stateDirectory),
        ])
    }
}

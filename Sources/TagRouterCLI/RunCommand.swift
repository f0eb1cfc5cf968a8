@preconcurrency import Glibc
import DaemonControl
import DaemonHTTP
import Lifecycle
import OrderedJSON
import SystemKit
import TagCore
import TagReader
import TagRouter

/// `tagrouter run`: the daemon. Loads the config, starts the readers, the
/// plugins and the router, and reacts to signals: SIGHUP reloads (a bad new
/// config is rejected and the old one keeps running), SIGTERM/SIGINT drain the
/// queues, spool the rest and exit 0.
enum RunCommand: Command {
    static let name = "run"
    static let summary = "run the daemon: readers → routes → actions"
    static let about = """
        Usage: tagrouter run [--config FILE] [--dry-run] [--state-dir DIR] [--events-from FILE]
                             [--control PATH] [--log-level LEVEL] [--log-format FORMAT]

        Watches the configured readers and runs the actions of the routes each
        event matches. Without --config it uses the first of
        $CONFIGURATION_DIRECTORY/tagrouter.yaml (systemd sets it), ./tagrouter.yaml,
        ~/.config/tagrouter/tagrouter.yaml, /etc/tagrouter/tagrouter.yaml, else
        the embedded default: auto-detect one reader, log every event as one JSON
        line on stdout, and publish it to an MQTT broker on localhost:1883 when
        one answers there (`tagrouter check-config` prints the config in use).
        """
    static let configOption = CommandOption("--config", "-c", value: "FILE", help: "the config file")
    static let dryRunOption = CommandOption("--dry-run", help: "log what each action would do instead of doing it")
    static let stateDirOption = CommandOption("--state-dir", value: "DIR", help: "where spools are kept (overrides `state_dir`)")
    static let eventsFromOption = CommandOption(
        "--events-from", value: "FILE",
        help: "read events as JSON lines from FILE (- for stdin) instead of\nthe readers and inputs; the daemon stops at the end of the input")
    static let options = [
        configOption, dryRunOption, stateDirOption, eventsFromOption, ControlOption.option,
    ] + RunLogOptions.options
    static let epilogue = """
        Signals: SIGHUP reloads the config; SIGTERM or SIGINT stop after draining the queues.
        On the control socket `tagrouter status`, `events` and `reload` reach the daemon,
        and `tagrouter write` and `read` go through it to the readers it holds.
        """

    static func run(_ arguments: Arguments) async throws(CLIError) {
        // First of all: a SIGHUP or SIGTERM sent while the config loads waits in the stream
        // instead of running its default action (which kills the daemon).
        let signals = Signals.stream([SIGHUP, SIGTERM, SIGINT])
        var arguments = arguments
        try RunLogOptions.apply(&arguments)
        // libnfc logs through stdio's stderr: in a JSON log or the journal its lines become entries.
        if Log.isStructured { LibraryOutput.capture() }
        let file = try RunConfigFile(explicit: try arguments.value(of: configOption))
        let dryRun = arguments.flag(dryRunOption)
        let stateDirectory = try arguments.value(of: stateDirOption)
        let eventsFrom = try arguments.value(of: eventsFromOption)
        let control = try ControlOption.path(&arguments)
        try arguments.finish()

        // Read and write jobs (control socket, MQTT commands) reach the readers through the board.
        let jobs = ReaderJobBoard()
        let loader = ConfigLoader(registry: builtinPlugins, dryRun: dryRun, stateDirectory: stateDirectory, tagJobs: eventsFrom == nil ? jobs : nil)
        let config = try file.loadOrExit(loader)
        jobs.use(tagPassword: config.tagPassword)
        signal(SIGPIPE, SIG_IGN)  // a closed stdout fails the `log` action, it does not kill the daemon
        let buffer = EventBuffer(capacity: config.eventBuffer)
        let progress = ProgressMonitor()
        let readers: ReaderSource?
        let sources: [any Service]
        // The host's sound plays at the readers this daemon runs (not for events read from a file).
        let sound = eventsFrom == nil ? HostSound(config.readers) : nil
        if let eventsFrom {
            readers = nil
            sources = [ConfiguredInput(kind: EventsInput.name, path: "--events-from", source: try EventsInput(path: eventsFrom)).service(into: buffer)]
        } else {
            readers = ReaderSource(config.readers, buffer: buffer, jobs: jobs, monitor: progress, sound: sound)
            sources = [readers!] + config.inputs.map { $0.service(into: buffer) }
        }
        let observer = DaemonObserver(eventBuffer: buffer)
        let routing = RoutingService(config: config, events: buffer, dryRun: dryRun, observer: observer)
        let systemd = RunSystemd(observer: observer, monitor: progress)
        // Each tap's outcome goes back to its reader's LEDs and buzzer, and to the host's sound (readers[].feedback).
        // Only when a reader can show or play it: watching makes the router build a live record for every event and action.
        let showsOutcomes = config.readers.contains { ($0.isPCSC && $0.feedback.model != .none) || (sound != nil && $0.feedback.sound != nil) }
        let tapFeedback = showsOutcomes ? TapFeedback(observer: observer) : nil
        defer { tapFeedback?.stop() }
        // A SIGHUP and a control client may ask at once: one reload at a time.
        let reload = SerialReload {
            systemd?.reloading()
            defer { systemd?.reloaded() }
            let next: RouterConfig
            do throws(ConfigErrors) {
                // Plugins whose settings did not change are kept: their connections stay up.
                next = try file.reload(loader.keeping(routing.latestConfig.loadedPlugins), running: routing.latestConfig)
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
            let notes = next.metrics == config.metrics ? [] : ["metrics: changed; the new settings take effect at the next restart (systemctl restart tagrouter)"]
            for note in notes { Log.warning(note, JSONObject(["file": .string(file.name)])) }
            return .reloaded(readers: next.readers.count, routes: next.routes.count, notes: notes)
        }
        // Stopped in this order: systemd hears STOPPING=1, the sources stop, the router drains what they sent,
        // then control and the signals.
        var members: [ServiceGroup.Member] = systemd.map { [.init("systemd", $0)] } ?? []
        members += [
            .init("sources", RunSources(sources: sources, buffer: buffer), stop: .graceful),
            .init("router", routing, stop: .drain),
        ]
        if let sound { members.append(.init("sound", sound)) }
        if let server = try controlServer(control, observer: observer, jobs: readers?.jobs, reload: { reload() }) { members.append(.init("control", server)) }
        if let metrics = config.metrics {
            // The page names tags the way `tagrouter tags learn` does, then reloads as SIGHUP does.
            let namer = file.path.map { PageTagNamer(config: $0, reload: { reload() }) }
            do throws(HTTPError) { members.append(.init("metrics", try MetricsService(metrics, observer: observer, namer: namer))) } catch { throw .runtime(error.description) }
        }
        members.append(.init("signals", RunSignals(signals: signals, reload: { _ = reload() })))
        // The router drains within shutdown_timeout, then its plugins stop (an exec plugin has 5 s, then
        // SIGTERM and 2 s more): past that the group cancels it, and 5 s after a cancellation it goes on
        // without the member, named in the log. No stop outlasts shutdown_timeout + 20 s per member.
        let services = ServiceGroup(members, deadlines: .init(graceful: config.shutdownTimeout + .seconds(15), cancellation: .seconds(5)))
        Log.info("router started", summary(config, file: file.name))
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

    /// The control socket's server; when the standard path cannot be used the
    /// daemon runs without one (and says so), when a given `--control` cannot, it does not start.
    private static func controlServer(
        _ control: (path: String, explicit: Bool), observer: DaemonObserver, jobs: ReaderJobBoard?, reload: @escaping @Sendable () -> ReloadOutcome
    ) throws(CLIError) -> ControlServer? {
        do {
            let server = try ControlServer(path: control.path, observer: observer, jobs: jobs, reload: reload)
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

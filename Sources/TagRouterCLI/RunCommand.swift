@preconcurrency import Glibc
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
    static let usage = """
        Usage: tagrouter run [--config FILE] [--dry-run] [--state-dir DIR] [--log-level LEVEL] [--log-format FORMAT]

        Watches the configured readers and runs the actions of the routes each
        event matches. Without --config it uses the first of
        $CONFIGURATION_DIRECTORY/tagrouter.yaml (systemd sets it), ./tagrouter.yaml,
        ~/.config/tagrouter/tagrouter.yaml, /etc/tagrouter/tagrouter.yaml, else
        the embedded default (log every event as one JSON line on stdout).

        Options:
          --config FILE        the config file
          --dry-run            log what each action would do instead of doing it
          --state-dir DIR      where spools are kept (overrides `state_dir`)
          --events-from FILE   read events as JSON lines from FILE (- for stdin) instead of
                               the readers; the daemon stops at the end of the input
        \(RunLogOptions.usage)

        Signals: SIGHUP reloads the config; SIGTERM or SIGINT stop after draining the queues.
        """

    static func run(_ arguments: Arguments) async throws(CLIError) {
        var arguments = arguments
        try RunLogOptions.apply(&arguments)
        let file = try RunConfigFile(explicit: try arguments.option("--config", "-c"))
        let dryRun = arguments.flag("--dry-run")
        let stateDirectory = try arguments.option("--state-dir")
        let eventsFrom = try arguments.option("--events-from")
        try arguments.finish()

        let loader = ConfigLoader(registry: builtinPlugins, dryRun: dryRun, stateDirectory: stateDirectory)
        var config = try file.loadOrExit(loader)
        signal(SIGPIPE, SIG_IGN)  // a closed stdout fails the `log` action, it does not kill the daemon
        let inputs = RunInputs(signals: [SIGHUP, SIGTERM, SIGINT])
        var readers: ReaderSupervisor?
        if let eventsFrom {
            try inputs.readEvents(from: eventsFrom)
        } else {
            let supervisor = RunReaderSource.start(config.readers)
            inputs.forward(supervisor.events)
            readers = supervisor
        }

        var router = Router(config: config, dryRun: dryRun)
        await router.start()
        Log.info("router started", summary(config, file: file.name))
        loop: for await input in inputs.stream {
            switch input {
            case .event(let event):
                router.dispatch(event)
            case .signal(SIGHUP):
                let next: RouterConfig
                do {
                    next = try file.load(loader)
                } catch {
                    Log.error("reload rejected; the running config stays", JSONObject(["file": .string(file.name), "problems": .array(error.errors.map { .string($0.description) })]))
                    continue
                }
                await router.shutdown(timeout: config.shutdownTimeout)
                if let running = readers, next.readers != config.readers {
                    running.stop()
                    let supervisor = RunReaderSource.start(next.readers)
                    inputs.forward(supervisor.events)
                    readers = supervisor
                    Log.info("readers restarted for the new config")
                }
                config = next
                router = Router(config: config, dryRun: dryRun)
                await router.start()
                Log.info("config reloaded", summary(config, file: file.name))
            case .signal(let number):
                Log.info("stopping", JSONObject(["signal": .int(Int64(number))]))
                break loop
            case .eventsEnded:
                Log.info("end of events; stopping")
                break loop
            }
        }
        readers?.stop()
        await router.shutdown(timeout: config.shutdownTimeout)
        var counters = JSONObject()
        for (id, count) in router.counters.sorted(by: { $0.key < $1.key }) {
            counters[id] = JSONValue.object(JSONObject([
                "delivered": .int(Int64(count.delivered)), "failed": .int(Int64(count.failed)), "dropped": .int(Int64(count.dropped)),
                "spooled": .int(Int64(count.spooled)), "retried": .int(Int64(count.retried)),
            ]))
        }
        Log.info("stopped", JSONObject(["actions": .object(counters)]))
    }

    private static func summary(_ config: RouterConfig, file: String) -> JSONObject {
        JSONObject([
            "config": .string(file), "readers": .int(Int64(config.readers.count)), "routes": .int(Int64(config.routes.count)),
            "actions": .int(Int64(config.actions.count)), "state_dir": .string(config.stateDirectory),
        ])
    }
}

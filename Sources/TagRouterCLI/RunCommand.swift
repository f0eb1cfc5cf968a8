@preconcurrency import Glibc
import SystemKit
import TagRouterDaemon

/// `tagrouter run`: the daemon. Loads the config, starts the readers, the
/// plugins and the router, and reacts to signals: SIGHUP reloads (a bad new
/// config is rejected and the old one keeps running), SIGTERM/SIGINT drain the
/// queues, spool the rest and exit 0.
enum RunCommand: Command {
    static let name = "run"
    static let summary = "run the daemon: readers → routes → actions"
    static let about = """
        Watches the configured readers and runs the actions of the routes each
        event matches. Without --config it uses the first of
        $CONFIGURATION_DIRECTORY/tagrouter.yaml (systemd sets it), ./tagrouter.yaml,
        ~/.config/tagrouter/tagrouter.yaml, /etc/tagrouter/tagrouter.yaml, else
        the embedded default: auto-detect one reader, log every event as one JSON
        line on stdout, and publish it to an MQTT broker on localhost:1883 when
        one answers there (`tagrouter check-config` prints the config in use).
        """
    static let configOption = ValueOption<String?>("--config", "-c", placeholder: "FILE", whenAbsent: "the first found, as above", help: "the config file")
    static let dryRunOption = CommandOption("--dry-run", help: "log what each action would do instead of doing it")
    static let stateDirOption = ValueOption<String?>("--state-dir", placeholder: "DIR", whenAbsent: "the config's `state_dir`", help: "where spools are kept")
    static let eventsFromOption = ValueOption<String?>(
        "--events-from", placeholder: "FILE",
        help: "read events as JSON lines from FILE (- for stdin) instead of\nthe readers and inputs; the daemon stops at the end of the input")
    static let options: [any DeclaredOption] = [
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
        var options = DaemonOptions(config: try ConfigFile.named(try arguments.value(of: configOption)))
        options.dryRun = arguments.flag(dryRunOption)
        options.stateDirectory = try arguments.value(of: stateDirOption)
        options.eventsFrom = try arguments.value(of: eventsFromOption)
        let control = try ControlOption.listeningPath(&arguments)
        options.control = control
        options.signals = signals
        options.loaded = { [file = options.config] in file.printWarnings($0) }
        try arguments.finish()
        if !control.explicit, let other = ControlOption.otherDaemon(besides: control.path) {
            throw .runtime(
                "another tagrouter daemon (\(other.which)) already answers at \(other.path); two on one machine fight for its readers "
                    + "and MQTT client id: stop that one first (the service: sudo systemctl stop tagrouter), or give this one its own --control PATH")
        }
        signal(SIGPIPE, SIG_IGN)  // a closed stdout fails the `log` action, it does not kill the daemon
        do throws(DaemonError) {
            let daemon = try Daemon(configuration: options)
            try await daemon.run()
        } catch {
            throw CLIError(error)
        }
    }
}

import DaemonControl
import TagRouter

/// How a `Daemon` is set up by its host: what `tagrouter run`'s options say, and
/// what a test gives instead of the process's signals and stdout.
public struct DaemonOptions: Sendable {
    /// The config (a file, or a text).
    public var config: ConfigFile
    /// Log what each action would do instead of doing it (`--dry-run`).
    public var dryRun = false
    /// Overrides the config's `state_dir` (`--state-dir`).
    public var stateDirectory: String?
    /// Read events as JSON lines from this file (`-`: stdin) instead of the readers and inputs; the daemon stops at its end.
    public var eventsFrom: String?
    /// The host hands the daemon events in process (`Daemon.host`), beside the readers and inputs (not with `eventsFrom`).
    public var hostEvents = false
    /// Run the config's readers (without `eventsFrom`). A host that feeds the events itself on a machine whose readers
    /// are not its own (a test) turns it off: the readers are then not run, and `status` lists none.
    public var runsReaders = true
    /// The control socket's path; `explicit` when the user named it (then a path that cannot be used stops the start,
    /// else the daemon runs without a control socket). nil: no control socket.
    public var control: (path: String, explicit: Bool)?
    /// Where the `log` action writes its lines.
    public var output: LineOutput = .standardOutput
    /// The process's signals (SIGHUP reloads, SIGTERM/SIGINT stop); nil: only `reload()` and `shutdown()` steer the daemon.
    public var signals: AsyncStream<Int32>?
    /// Tell systemd how the daemon is (`NOTIFY_SOCKET`, when it is set).
    public var notifiesSystemd = true
    /// Called with the config once it is loaded, before anything is built from it or starts (the events file
    /// checked, the control socket bound, readers and plugins run): `run` prints the config's warnings there,
    /// first, also when the start then fails.
    public var loaded: (@Sendable (RouterConfig) -> Void)?

    public init(config: ConfigFile) {
        self.config = config
    }
}

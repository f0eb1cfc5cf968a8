import DaemonControl
import OrderedJSON
import Synchronization
import SystemKit
import TagCore
import TagRouter
import TagRouterDaemon

/// A tagrouter daemon running in the test process, as `tagrouter run` runs in its own: the test hands it
/// events in process (`send`, through `Daemon.host` into the daemon's buffer, the path readers and inputs
/// take), and its configured inputs, control socket and metrics listener run as they would (its readers
/// too when asked); the `log` action's lines and the daemon's own log (a `Logger` bound to its tasks and
/// threads, at debug) are captured in memory (the test process's stdout and stderr are not touched);
/// `reload()` and `stop()` are the daemon's own. Given an `eventsFrom` file it runs as `run --events-from`.
/// Every wait has a deadline and waits on state, never on a moment.
public final class TestDaemon: Sendable {
    /// Waiting for the daemon took longer than its deadline.
    public struct Timeout: Error, CustomStringConvertible {
        public let waitingFor: String
        public let output: [String]
        public var description: String { "timed out waiting for \(waitingFor); the log action wrote so far:\n" + output.joined(separator: "\n") }
    }

    /// The daemon itself: its observer, counters and running config.
    public let daemon: Daemon
    /// What the daemon's task and the output sink fill in.
    private final class Captured: Sendable {
        let lines = Mutex<[String]>([])
        let log = Mutex<[Log.Entry]>([])
        let ended = Mutex<Result<Void, DaemonError>?>(nil)
    }

    private let captured = Captured()
    /// The daemon's log, bound to its start, its run and `reload()`.
    private let logger: Logger

    /// Builds the daemon from `options` and starts running it. Its `output` and `signals` are set here; unless
    /// `options` give an `eventsFrom` file, the test hands it the events (`send`), and it runs the config's readers
    /// only when `readers` is true (they open devices: a simulator's, a vpcd slot).
    /// Relative paths in a config text start from the current directory; give a file to start them elsewhere.
    public init(_ options: DaemonOptions, readers: Bool = false) throws {
        var options = options
        options.hostEvents = options.eventsFrom == nil
        options.runsReaders = readers
        options.signals = nil
        options.notifiesSystemd = false
        let captured = captured
        options.output = LineOutput(name: "the test's output") { bytes in
            let line = String(decoding: bytes.last == UInt8(ascii: "\n") ? bytes.dropLast() : bytes[...], as: UTF8.self)
            captured.lines.withLock { $0.append(line) }
            return nil
        }
        let logger = Logger(level: .debug, sink: { entry in captured.log.withLock { $0.append(entry) } })
        daemon = try Logger.$bound.withValue(logger) { try Daemon(configuration: options) }
        self.logger = logger
        let daemon = daemon
        Task {
            let result: Result<Void, DaemonError> = await Logger.$bound.withValue(logger) {
                do throws(DaemonError) {
                    try await daemon.run()
                    return .success(())
                } catch {
                    return .failure(error)
                }
            }
            captured.ended.withLock { $0 = result }
        }
    }

    /// A daemon for config `text` (its spools in `stateDirectory`; its readers run when `readers` is true).
    public convenience init(config text: String, stateDirectory: String, dryRun: Bool = false, readers: Bool = false) throws {
        var options = DaemonOptions(config: ConfigFile(text: text, name: "test.yaml"))
        options.stateDirectory = stateDirectory
        options.dryRun = dryRun
        try self.init(options, readers: readers)
    }

    /// A daemon for the config file at `path`, read again by each `reload()` (relative paths in it start from its folder);
    /// with `eventsFrom`, it reads its events from that file, as `run --events-from` does, and stops at its end.
    public convenience init(configFile path: String, eventsFrom: String? = nil, readers: Bool = false) throws {
        var options = DaemonOptions(config: try ConfigFile(explicit: path))
        options.eventsFrom = eventsFrom
        try self.init(options, readers: readers)
    }

    /// A test that ended early (a failed expectation) ends the input: without readers or inputs, the daemon drains and stops by itself.
    deinit { closeInput() }

    /// Hands the daemon one event, read from its JSON as an events file's line is (untrusted), as an input does:
    /// it waits while the daemon's buffer is full. False when the daemon did not take it (it reads from a file, the
    /// input was closed, or it is stopping).
    @discardableResult
    public func send(_ event: JSONValue) async throws -> Bool {
        guard let host = daemon.host else { return false }
        return await host.send(try TagEvent(json: event))
    }

    /// Ends the test's events: without readers or inputs, the daemon then routes what it holds and stops.
    public func closeInput() { daemon.host?.finish() }

    /// The lines the `log` action wrote so far.
    public var output: [String] { captured.lines.withLock { $0 } }

    /// Waits until the `log` action wrote `count` lines, returning them all.
    @discardableResult
    public func output(count: Int, timeout: Duration = .seconds(20)) async throws -> [String] {
        try await waitUntil("\(count) lines of output", timeout: timeout) { captured.lines.withLock { $0.count >= count } }
        return output
    }

    /// The daemon's log entries so far (debug and up).
    public var log: [Log.Entry] { captured.log.withLock { $0 } }

    /// The daemon's log so far from `level` up, each entry as `run --log-format json` writes it on stderr (without
    /// its `time`): `level`, `msg`, then its fields. `run`'s own level is `info`.
    public func logLines(from level: Log.Level = .info) -> [JSONValue] {
        log.filter { $0.level >= level }.map { .object($0.json) }
    }

    /// Waits for a log entry whose message contains `text`, returning it.
    @discardableResult
    public func log(containing text: String, timeout: Duration = .seconds(20)) async throws -> Log.Entry {
        var found: Log.Entry?
        try await waitUntil("'\(text)' in the log", timeout: timeout) {
            found = captured.log.withLock { $0.first { $0.message.contains(text) } }
            return found != nil
        }
        return found!
    }

    /// Loads the config again (as SIGHUP does), after the reloads asked before it.
    @discardableResult
    public func reload() async -> ReloadOutcome { await Logger.$bound.withValue(logger) { await daemon.reload() } }

    /// Begins the graceful shutdown (as SIGTERM does) and waits for the daemon to end.
    public func stop(timeout: Duration = .seconds(60)) async throws {
        daemon.shutdown()
        try await finished(timeout: timeout)
    }

    /// Waits for the daemon's run to end (the end of the input, or `stop()`); rethrows how it failed.
    public func finished(timeout: Duration = .seconds(60)) async throws {
        try await waitUntil("the daemon to stop", timeout: timeout) { captured.ended.withLock { $0 != nil } }
        try captured.ended.withLock { $0 }?.get()
    }

    /// Polls `condition` until true or the deadline; sleeps between polls, never blocks a thread of the pool.
    private func waitUntil(_ what: String, timeout: Duration, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            guard ContinuousClock.now < deadline else { throw Timeout(waitingFor: what, output: output) }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}

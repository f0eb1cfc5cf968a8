@preconcurrency import Glibc
import DaemonControl
import OrderedJSON
import Synchronization
import SystemKit
import TagRouter
import TagRouterDaemon

/// A tagrouter daemon running in the test process, as `tagrouter run --events-from -`
/// runs in its own: events go in as JSON lines through a pipe read by the real
/// `events` input; the `log` action's lines and the daemon's own log (a `Logger`
/// bound to its tasks and threads, at debug) are captured in memory (the test
/// process's stdout and stderr are not touched); `reload()` and `stop()` are the daemon's own.
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
    /// The write end of the pipe the events go through (the daemon reads `/dev/fd/<read end>`); nil once closed.
    private let writeEnd = Mutex<Int32?>(nil)

    /// Builds the daemon from `options` and starts running it. Its `output` and `signals` are set here, and its
    /// `eventsFrom` unless one is given (a file: then `send` is not read).
    /// Relative paths in a config text start from the current directory; give a file to start them elsewhere.
    public init(_ options: DaemonOptions) throws {
        var fds: [Int32] = [-1, -1]
        // Close-on-exec: a child the daemon starts (a shell action) must not hold the write end, or the input never ends.
        guard pipe(&fds) == 0 else { throw DaemonError.runtime("pipe: \(String(cString: strerror(errno)))") }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        writeEnd.withLock { $0 = fds[1] }
        var options = options
        options.eventsFrom = options.eventsFrom ?? "/dev/fd/\(fds[0])"
        options.signals = nil
        options.notifiesSystemd = false
        let captured = captured
        options.output = LineOutput(name: "the test's output") { bytes in
            let line = String(decoding: bytes.last == UInt8(ascii: "\n") ? bytes.dropLast() : bytes[...], as: UTF8.self)
            captured.lines.withLock { $0.append(line) }
            return nil
        }
        let logger = Logger(level: .debug, sink: { entry in captured.log.withLock { $0.append(entry) } })
        do {
            daemon = try Logger.$bound.withValue(logger) { try Daemon(configuration: options) }
        } catch {
            close(fds[0])
            close(fds[1])
            throw error
        }
        self.logger = logger
        let (daemon, readEnd) = (daemon, fds[0])
        Task {
            let result: Result<Void, DaemonError> = await Logger.$bound.withValue(logger) {
                do throws(DaemonError) {
                    try await daemon.run()
                    return .success(())
                } catch {
                    return .failure(error)
                }
            }
            // Only now: closed earlier, its number could name another file before the events input opened it.
            close(readEnd)
            captured.ended.withLock { $0 = result }
        }
    }

    /// A daemon for config `text` (events only from the test; its spools in `stateDirectory`).
    public convenience init(config text: String, stateDirectory: String, dryRun: Bool = false) throws {
        var options = DaemonOptions(config: ConfigFile(text: text, name: "test.yaml"))
        options.stateDirectory = stateDirectory
        options.dryRun = dryRun
        try self.init(options)
    }

    /// A daemon for the config file at `path`, read again by each `reload()` (relative paths in it start from its folder).
    public convenience init(configFile path: String, eventsFrom: String? = nil) throws {
        var options = DaemonOptions(config: try ConfigFile(explicit: path))
        options.eventsFrom = eventsFrom
        try self.init(options)
    }

    /// A test that ended early (a failed expectation) ends the input: the daemon drains and stops by itself.
    deinit { closeInput() }

    /// Sends one event as a JSON line (it may wait while the pipe is full: the daemon reads on a thread of its own).
    public func send(_ event: JSONValue) { send(line: event.serialized()) }

    /// Sends `line` and a newline as they are (a line that is not an event, to be skipped).
    public func send(line: String) {
        let bytes = Array((line + "\n").utf8)
        writeEnd.withLock { fd in
            guard let fd else { return }
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }

    /// Closes the events input: the end of the events, so the daemon drains and stops.
    public func closeInput() {
        writeEnd.withLock { fd in
            if let fd { close(fd) }
            fd = nil
        }
    }

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

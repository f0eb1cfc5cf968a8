import ChildProcess
import TagCore
import TagRouter

/// One plugin program and the conversation with it: starts it and sends the
/// hello, writes event lines and reads their replies one at a time, forwards
/// its stderr to the log, and restarts it with backoff whenever it dies.
actor ExecSession: Service {
    nonisolated let command: ChildCommand
    private let route: String
    private let replyTimeout: Duration
    private let backoff: Backoff

    private var child: ChildProcess?
    private var replies: AsyncStream<String>.AsyncIterator?
    /// Counts launches, so news about an old child is recognised as old.
    private var generation = 0
    /// Deaths since the last good reply, for the backoff.
    private var failures = 0
    private var started = false
    private var stopped = false

    init(command: ChildCommand, route: String, replyTimeout: Duration, backoff: Backoff) {
        self.command = command
        self.route = route
        self.replyTimeout = replyTimeout
        self.backoff = backoff
    }

    /// The program as a service: started at once (and restarted when it dies)
    /// until cancelled, then stopped.
    nonisolated func run() async {
        await start()
        await Latch().wait()
        await stop()
    }

    /// Starts the program (once).
    func start() {
        guard !started else { return }
        started = true
        launch()
    }

    /// Closes the program's stdin, gives it a few seconds to finish, then terminates its process group.
    func stop() async {
        stopped = true
        guard let child else { return }
        child.closeInput()
        let timer = Task {
            try await Task.sleep(for: .seconds(5))
            child.terminate()
        }
        _ = await child.termination()
        timer.cancel()
    }

    /// Sends one event line and waits for its reply.
    func deliver(_ line: String) async throws(ActionError) {
        if !started { start() }
        let program = command.arguments[0]
        guard let child, var iterator = replies else { throw .retryable("exec: \(program) is not running (restarting)") }
        let generation = generation
        guard child.write(Array((line + "\n").utf8)) else { throw .retryable("exec: \(program) exited before taking the event") }
        let timeout = replyTimeout
        let sent = ContinuousClock.now
        let timer = Task {
            try await Task.sleep(for: timeout)
            child.terminate()
        }
        var line: ExecProtocol.Line?
        repeat {
            line = await iterator.next(isolation: self).map(ExecProtocol.interpret)
        } while line == .skip
        timer.cancel()
        if generation == self.generation { replies = iterator }
        switch line {
        case nil:
            // Its stdout is closed: without answers it is of no use, even if still running.
            child.terminate()
            if ContinuousClock.now - sent >= timeout { throw .retryable("exec: \(program) gave no answer within \(timeout); restarting it") }
            throw .retryable("exec: \(program) exited before answering")
        case .ok?, .skip?:
            failures = 0
        case .retry(let message)?:
            failures = 0
            throw .retryable("exec: \(program): \(message)")
        case .fail(let message)?:
            failures = 0
            throw .permanent("exec: \(program): \(message)")
        case .unsupported(let version)?:
            child.terminate()
            throw .permanent("exec: \(program) speaks protocol \(version.serialized()); this tagrouter speaks \(ExecProtocol.version)")
        case .malformed(let text)?:
            // Replies no longer pair with events: start afresh.
            child.terminate()
            throw .retryable("exec: \(program) answered a line that is not a reply (\(text)); restarting it")
        }
    }

    private func launch() {
        guard !stopped, child == nil else { return }
        generation += 1
        let generation = generation
        let child: ChildProcess
        do {
            child = try ChildProcess(command, options: ChildOptions(input: .stream, stdout: .lines, stderr: .lines))
        } catch {
            Log.error("exec: cannot start plugin", fields(["error": .string("\(error)")]))
            restartLater()
            return
        }
        self.child = child
        replies = child.stdoutLines.makeAsyncIterator()
        child.write(Array((ExecProtocol.helloLine(route: route) + "\n").utf8))
        Log.info("exec: plugin started", fields(["pid": .int(Int64(child.pid))]))
        let stderrFields = fields(["pid": .int(Int64(child.pid))])
        Task {
            for await line in child.stderrLines {
                var entry = stderrFields
                entry["stderr"] = .string(line)
                Log.info("exec: plugin says", entry)
            }
        }
        Task {
            let termination = await child.termination()
            self.exited(generation: generation, termination: termination)
        }
    }

    private func exited(generation: Int, termination: ChildTermination) {
        guard generation == self.generation else { return }
        child = nil
        replies = nil
        guard !stopped else { return }
        // A plugin that ran for a good while before dying starts a fresh backoff.
        if termination.duration > backoff.maximum { failures = 0 }
        Log.warning("exec: plugin exited", fields(["status": .string(termination.description)]))
        restartLater()
    }

    private func restartLater() {
        failures += 1
        let delay = backoff.delay(forAttempt: failures)
        Log.info("exec: restarting plugin", fields(["in_ms": .int(Int64(delay.seconds * 1000))]))
        Task {
            try? await Task.sleep(for: delay)
            self.launch()
        }
    }

    private func fields(_ extra: KeyValuePairs<String, JSONValue>) -> JSONObject {
        var object = JSONObject(["route": .string(route), "command": .string(command.description)])
        for (key, value) in extra { object[key] = value }
        return object
    }
}

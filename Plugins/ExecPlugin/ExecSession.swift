import ChildProcess
import TagCore
import TagRouter

/// One plugin program and the conversation with it: starts it and sends the
/// hello, writes event lines and hands each the reply line that follows it,
/// forwards its stderr to the log, and restarts it with backoff whenever it dies.
///
/// Its stdout is read all the time, not only while an event waits: a line that
/// arrives when none waits (other than a blank line or its hello) breaks the
/// one-reply-per-event pairing, so the plugin is restarted rather than the line
/// kept for (and counted as the answer to) a later event.
actor ExecSession: Service {
    nonisolated let command: ChildCommand
    private let route: String
    nonisolated let replyTimeout: Duration
    nonisolated let backoff: Backoff

    private var child: ChildProcess?
    /// The delivery waiting for its reply: resumed with the line, or nil when the plugin's output ended.
    private var waiting: CheckedContinuation<String?, Never>?
    /// The current child broke the protocol and is being terminated: what it still says is ignored.
    private var broken = false
    /// Counts launches, so news about an old child is recognised as old.
    private var generation = 0
    /// Deaths since the last good reply, for the backoff.
    private var failures = 0
    private var started = false
    private var stopped = false
    /// Terminates a child that takes longer than `replyTimeout` to answer (one timer for all deliveries).
    private let replyWatchdog = Watchdog()

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
        replyWatchdog.cancel()
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
        guard let child, !broken, waiting == nil else { throw .retryable("exec: \(program) is not running (restarting)") }
        guard child.write(Array((line + "\n").utf8)) else { throw .retryable("exec: \(program) exited before taking the event") }
        let timeout = replyTimeout
        let sent = ContinuousClock.now
        replyWatchdog.set(sent + timeout) { child.terminate() }
        let reply = await withCheckedContinuation { waiting = $0 }
        replyWatchdog.clear()
        switch reply.map(ExecProtocol.interpret) {
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
            breakProtocol()
            throw .permanent("exec: \(program) speaks protocol \(version.serialized()); this tagrouter speaks \(ExecProtocol.version)")
        case .malformed(let text)?:
            breakProtocol()
            throw .retryable("exec: \(program) answered a line that is not a reply (\(text)); restarting it")
        case .tooLong?:
            breakProtocol()
            throw .retryable("exec: \(program) answered a line of \(ExecProtocol.maximumLineBytes) bytes or more; restarting it")
        }
    }

    private func launch() {
        guard !stopped, child == nil else { return }
        generation += 1
        let generation = generation
        let child: ChildProcess
        do {
            child = try ChildProcess(command, options: ChildOptions(
                input: .stream, stdout: .lines, stderr: .lines, maxLineBytes: ExecProtocol.maximumLineBytes, killsGroupOnExit: true))
        } catch {
            Log.error("exec: cannot start plugin", fields(["error": .string("\(error)")]))
            restartLater()
            return
        }
        self.child = child
        broken = false
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
            for await line in child.stdoutLines { self.received(line, generation: generation) }
            self.answer(nil, generation: generation)
        }
        Task {
            let termination = await child.termination()
            self.exited(generation: generation, termination: termination)
        }
    }

    /// One line from the plugin's stdout: the reply of the waiting delivery, or,
    /// when none waits, a protocol error that restarts the plugin.
    private func received(_ line: String, generation: Int) {
        guard generation == self.generation, !broken else { return }
        if waiting != nil {
            if ExecProtocol.interpret(line) != .skip { answer(line, generation: generation) }
            return
        }
        switch ExecProtocol.interpret(line) {
        case .skip:
            return
        case .tooLong:
            Log.warning("exec: plugin wrote a line of \(ExecProtocol.maximumLineBytes) bytes or more; restarting it", fields([:]))
        default:
            Log.warning("exec: plugin answered when no event was waiting for an answer; restarting it",
                        fields(["line": .string(String(line.prefix(200)))]))
        }
        breakProtocol()
    }

    /// Resumes the waiting delivery with `reply` (nil: no reply will come).
    private func answer(_ reply: String?, generation: Int) {
        guard generation == self.generation, let waiting else { return }
        self.waiting = nil
        waiting.resume(returning: reply)
    }

    /// Replies no longer pair with events: ignore the rest and start afresh.
    private func breakProtocol() {
        broken = true
        child?.terminate()
    }

    private func exited(generation: Int, termination: ChildTermination) {
        guard generation == self.generation else { return }
        answer(nil, generation: generation)
        child = nil
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

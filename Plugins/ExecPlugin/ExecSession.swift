import ChildProcess
import Lifecycle
import OrderedJSON
import SystemKit
import TagRouter

/// One plugin program and the conversation with it: starts it and sends the
/// hello, writes event lines and hands each the answer that names it, forwards
/// its stderr to the log, and restarts it with backoff whenever it dies.
///
/// Its stdout is read all the time, not only while an event waits: a line that
/// arrives when none waits (other than a blank line or its hello), or an answer
/// that does not name the event sent, breaks the one-answer-per-event pairing,
/// so the plugin is restarted rather than the line counted as a delivery.
actor ExecSession: Service {
    /// How long a plugin whose stdin was closed at shutdown has to finish before it is terminated.
    static let stopGrace: Duration = .seconds(5)

    nonisolated let command: ChildCommand
    private nonisolated let route: String
    nonisolated let replyTimeout: Duration
    nonisolated let backoff: Backoff

    private var child: ChildProcess?
    /// The delivery waiting for its answer: its event's id, and where the answer goes (nil: none will come).
    private var waiting: (id: String, answer: CheckedContinuation<ExecProtocol.Line?, Never>)?
    /// The current child broke the protocol and is being terminated: what it still says is ignored.
    private var broken = false
    /// Deaths since the last good answer, for the backoff.
    private var failures = 0
    /// Open once the first launch was tried (deliveries wait for it) and again when the session ends.
    private nonisolated let firstLaunch = Latch()
    /// Terminates a child that takes longer than `replyTimeout` to answer (one timer for all deliveries).
    private nonisolated let replyWatchdog = Watchdog()

    init(command: ChildCommand, route: String, replyTimeout: Duration, backoff: Backoff) {
        self.command = command
        self.route = route
        self.replyTimeout = replyTimeout
        self.backoff = backoff
    }

    /// The program as a service, in one loop: start it, converse until it exits,
    /// wait out the backoff, start it again — until cancelled; then its stdin is
    /// closed and it has `stopGrace` to exit before its process group is terminated.
    nonisolated func run() async {
        while !Task.isCancelled {
            if let child = await launch() {
                let termination = await withTaskCancellationHandler {
                    await converse(with: child)
                } onCancel: {
                    child.stop(grace: Self.stopGrace)
                }
                await exited(termination, stopping: Task.isCancelled)
            }
            guard !Task.isCancelled else { break }
            do { try await Task.sleep(for: await restartDelay()) } catch { break }
        }
        replyWatchdog.cancel()
        firstLaunch.open()
    }

    /// Sends one event line and waits for the answer that names it.
    func deliver(_ delivery: Delivery) async throws(ActionError) {
        await firstLaunch.wait()
        let program = command.arguments[0]
        guard let child, !broken, waiting == nil else { throw .retryable("exec: \(program) is not running (restarting)") }
        let id = delivery.event.id
        guard child.write(Array((ExecProtocol.eventLine(delivery) + "\n").utf8)) else { throw .retryable("exec: \(program) exited before taking the event") }
        let timeout = replyTimeout
        let sent = ContinuousClock.now
        replyWatchdog.set(sent + timeout) { child.terminate() }
        let answer = await withCheckedContinuation { waiting = (id, $0) }
        replyWatchdog.clear()
        switch answer {
        case nil, .skip?:  // (a skipped line is never handed over)
            // Its stdout is closed: without answers it is of no use, even if still running.
            child.terminate()
            if ContinuousClock.now - sent >= timeout { throw .retryable("exec: \(program) gave no answer within \(timeout); restarting it") }
            throw .retryable("exec: \(program) exited before answering")
        case .answer(let named, let outcome)?:
            guard named == id else {
                breakProtocol()
                let who = named.map { "event \(String($0.prefix(80)).debugDescription)" } ?? "no event (the answer has no \"id\")"
                throw .retryable("exec: \(program) answered for \(who), not for the event sent (\(id)); restarting it")
            }
            failures = 0
            switch outcome {
            case .ok: return
            case .retry(let message): throw .retryable("exec: \(program): \(message)")
            case .fail(let message): throw .permanent("exec: \(program): \(message)")
            }
        case .unsupported(let version)?:
            breakProtocol()
            throw .permanent("exec: \(program) speaks protocol \(version.serialized()); this tagrouter speaks \(ExecProtocol.version)")
        case .malformed(let text)?:
            breakProtocol()
            throw .retryable("exec: \(program) answered a line that is not an answer (\(text)); restarting it")
        case .tooLong?:
            breakProtocol()
            throw .retryable("exec: \(program) answered a line of \(ExecProtocol.maximumLineBytes) bytes or more; restarting it")
        }
    }

    /// Starts the program and sends the hello; nil when it cannot be started.
    private func launch() -> ChildProcess? {
        defer { firstLaunch.open() }
        let child: ChildProcess
        do {
            child = try ChildProcess(command, options: ChildOptions(
                input: .stream, stdout: .lines, stderr: .lines, maxLineBytes: ExecProtocol.maximumLineBytes, killsGroupOnExit: true))
        } catch {
            Log.error("exec: cannot start plugin", fields(["error": .string("\(error)")]))
            return nil
        }
        self.child = child
        broken = false
        child.write(Array((ExecProtocol.helloLine(route: route) + "\n").utf8))
        Log.info("exec: plugin started", fields(["pid": .int(Int64(child.pid))]))
        return child
    }

    /// Reads the child's stdout (answers) and stderr (the log) until it has exited.
    private nonisolated func converse(with child: ChildProcess) async -> ChildTermination {
        let stderrFields = fields(["pid": .int(Int64(child.pid))])
        return await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await line in child.stderrLines {
                    var entry = stderrFields
                    entry["stderr"] = .string(line)
                    Log.info("exec: plugin says", entry)
                }
            }
            group.addTask {
                for await line in child.stdoutLines { await self.received(line) }
                await self.answer(nil)
            }
            let termination = await child.termination()
            await group.waitForAll()
            return termination
        }
    }

    /// One line from the plugin's stdout: the answer for the waiting delivery, or,
    /// when none waits, a protocol error that restarts the plugin.
    private func received(_ line: String) {
        guard !broken else { return }
        let interpreted = ExecProtocol.interpret(line)
        if interpreted == .skip { return }
        if waiting != nil { return answer(interpreted) }
        if interpreted == .tooLong {
            Log.warning("exec: plugin wrote a line of \(ExecProtocol.maximumLineBytes) bytes or more; restarting it", fields([:]))
        } else {
            Log.warning("exec: plugin answered when no event was waiting for an answer; restarting it", fields(["line": .string(String(line.prefix(200)))]))
        }
        breakProtocol()
    }

    /// Resumes the waiting delivery with `line` (nil: no answer will come).
    private func answer(_ line: ExecProtocol.Line?) {
        guard let waiting else { return }
        self.waiting = nil
        waiting.answer.resume(returning: line)
    }

    /// Answers no longer pair with events: ignore the rest and start afresh.
    private func breakProtocol() {
        broken = true
        child?.terminate()
    }

    private func exited(_ termination: ChildTermination, stopping: Bool) {
        answer(nil)
        child = nil
        guard !stopping else { return }
        // A plugin that ran for a good while before dying starts a fresh backoff.
        if termination.duration > backoff.maximum { failures = 0 }
        Log.warning("exec: plugin exited", fields(["status": .string(termination.description)]))
    }

    /// The wait before the next start, longer after each failure in a row.
    private func restartDelay() -> Duration {
        failures += 1
        let delay = backoff.delay(forAttempt: failures)
        Log.info("exec: restarting plugin", fields(["in_ms": .int(Int64(delay.seconds * 1000))]))
        return delay
    }

    private nonisolated func fields(_ extra: KeyValuePairs<String, JSONValue>) -> JSONObject {
        var object = JSONObject(["route": .string(route), "command": .string(command.description)])
        for (key, value) in extra { object[key] = value }
        return object
    }
}

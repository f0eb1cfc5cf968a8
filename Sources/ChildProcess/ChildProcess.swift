import Glibc

/// A running child process in its own process group, minded by a dedicated
/// thread (blocking calls never run on the cooperative pool). Start one with
/// `init` for a long-lived child or `run` for a command that should finish.
public final class ChildProcess: Sendable {
    /// The child's process id, which is also its process group id.
    public let pid: pid_t
    public let command: ChildCommand
    /// Lines of standard output when it is `.lines`; finishes when the child exits.
    public let stdoutLines: ChildOutputLines
    /// Lines of standard error when it is `.lines`; finishes when the child exits.
    public let stderrLines: ChildOutputLines
    private let channel: ChildChannel

    /// Starts `command` now. Throws when it cannot be started (not found, not
    /// executable, bad directory, a NUL in an argument or the environment).
    public init(_ command: ChildCommand, options: ChildOptions = ChildOptions()) throws(ChildProcessError) {
        _ = Self.ignoreBrokenPipes
        if let problem = command.nulCharacter() { throw problem }
        let program = try command.resolvedProgram()
        let channel = try ChildChannel()
        var pipes = PipeSet()
        defer { pipes.closeAll() }
        let inputEnds = try pipes.make(for: options.input)
        let stdoutEnds = try pipes.make(for: options.stdout)
        let stderrEnds = try pipes.make(for: options.stderr)

        let slots: [Spawner.Slot] = [
            inputEnds.map { .descriptor($0.child) } ?? .devNull(writable: false),
            Self.slot(options.stdout, stdoutEnds),
            Self.slot(options.stderr, stderrEnds),
        ]
        // A child whose group dies with it is marked, so that what left the group dies too.
        let mark = options.killsGroupOnExit ? DescendantMark() : nil
        let pid = try Spawner.spawn(program: program, command: mark?.marking(command) ?? command, slots: slots)
        let started = ContinuousClock.now
        pipes.keepParentEnds()

        let (stdoutLines, stdoutOutput) = Self.output(options.stdout, stdoutEnds, channel, options)
        let (stderrLines, stderrOutput) = Self.output(options.stderr, stderrEnds, channel, options)
        let outputs = [stdoutOutput, stderrOutput]
        if case .bytes(let bytes) = options.input {
            channel.state.withLock { state in
                state.pendingInput = bytes
                state.closeInputRequested = true
            }
        }
        self.pid = pid
        self.command = command
        self.stdoutLines = stdoutLines
        self.stderrLines = stderrLines
        self.channel = channel
        ChildSupervisor(pid: pid, channel: channel, input: inputEnds?.parent, outputs: outputs, options: options, mark: mark, started: started).start()
    }

    /// Runs `command` to the end (or its timeout) and returns how it ended.
    /// Cancelling the calling task terminates the child's process group.
    public static func run(_ command: ChildCommand, options: ChildOptions) async throws(ChildProcessError) -> ChildTermination {
        let child = try ChildProcess(command, options: options)
        return await withTaskCancellationHandler {
            await child.termination()
        } onCancel: {
            child.terminate()
        }
    }

    /// Queues bytes for standard input (`.stream` only). False when input is
    /// closed or the child has exited: the bytes were not taken.
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        let taken = channel.state.withLock { state -> Bool in
            guard !state.closeInputRequested, !state.exited, state.termination == nil else { return false }
            state.pendingInput += bytes
            return true
        }
        if taken { channel.wake() }
        return taken
    }

    /// Closes standard input once the queued bytes are written (the child sees end of file).
    public func closeInput() {
        channel.state.withLock { $0.closeInputRequested = true }
        channel.wake()
    }

    /// Closes standard input (the child sees end of file and may finish what it
    /// has in hand), then terminates the child if it still runs after `grace`.
    public func stop(grace: Duration) {
        channel.state.withLock { state in
            state.closeInputRequested = true
            let due = ContinuousClock.now + grace
            state.terminateAt = min(state.terminateAt ?? due, due)
        }
        channel.wake()
    }

    /// Sends `SIGTERM` to the whole process group, then `SIGKILL` after the kill grace.
    public func terminate() {
        channel.state.withLock { $0.terminateRequested = true }
        channel.wake()
    }

    /// True once the child has exited (it may not be reaped yet).
    public var hasExited: Bool { channel.state.withLock { $0.exited } }

    /// Waits until the child has exited and been reaped.
    public func termination() async -> ChildTermination {
        await withCheckedContinuation { continuation in
            let finished = channel.state.withLock { state -> ChildTermination? in
                if let termination = state.termination { return termination }
                state.waiters.append(continuation)
                return nil
            }
            if let finished { continuation.resume(returning: finished) }
        }
    }

    /// Writing to a child that stopped reading must fail with `EPIPE`, not kill the daemon.
    private static let ignoreBrokenPipes: Void = {
        signal(SIGPIPE, SIG_IGN)
    }()

    private static func slot(_ output: ChildOptions.Output, _ ends: PipeSet.Ends?) -> Spawner.Slot {
        if let ends { return .descriptor(ends.child) }
        switch output {
        case .inherit: return .inherit
        case .daemonStandardError: return .descriptor(STDERR_FILENO)
        case .null, .tail, .lines: return .devNull(writable: true)
        }
    }

    private static func output(
        _ output: ChildOptions.Output, _ ends: PipeSet.Ends?, _ channel: ChildChannel, _ options: ChildOptions
    ) -> (ChildOutputLines, ChildSupervisor.Output) {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        let buffer = LineBuffer(limit: options.bufferedBytes) { channel.wake() }
        let lines = ChildOutputLines(stream: stream, buffer: buffer)
        guard case .lines = output else {
            continuation.finish()
            return (lines, ChildSupervisor.Output(
                descriptor: ends?.parent, collector: OutputCollector(tailLimit: options.tailBytes, lineLimit: options.maxLineBytes, onLine: nil)))
        }
        // Lines nobody will take any more (the reading task was cancelled) no longer hold the pipe back.
        continuation.onTermination = { _ in buffer.abandon() }
        let collector = OutputCollector(tailLimit: options.tailBytes, lineLimit: options.maxLineBytes) { line in
            buffer.added(line)
            continuation.yield(line)
        }
        return (lines, ChildSupervisor.Output(descriptor: ends?.parent, collector: collector, lines: continuation, buffer: buffer))
    }
}

import Glibc
import SystemKit

/// The thread that minds one child: feeds its standard input, reads its output
/// into tails and lines, enforces the timeout by signalling the whole process
/// group, and reaps it. It owns the parent's ends of the pipes.
///
/// Output is read one slice per wake-up, so a child that floods a pipe never
/// keeps the thread from seeing a request to terminate; a stream whose lines
/// wait unread (`LineBuffer.isFull`) is not read at all until room comes back.
final class ChildSupervisor: @unchecked Sendable {
    /// One captured output pipe.
    struct Output {
        var descriptor: Int32?
        var collector: OutputCollector
        var lines: AsyncStream<String>.Continuation?
        var buffer: LineBuffer?

        /// Whether the pipe may be read now.
        var wantsInput: Bool { descriptor != nil && buffer?.isFull != true }
    }

    /// The most read from one pipe at a time.
    private static let sliceBytes = 65536
    /// The most taken from each pipe after the child exited (its descendants may still write).
    private static let drainSlices = 16

    private let pid: pid_t
    private let channel: ChildChannel
    private var input: Int32?
    private var outputs: [Output]
    private let deadline: ContinuousClock.Instant?
    private let killGrace: Duration
    private let killsGroupOnExit: Bool
    /// The mark of the processes the child started (with `killsGroupOnExit`), killed with its group.
    private let mark: DescendantMark?
    private let started: ContinuousClock.Instant

    init(
        pid: pid_t, channel: ChildChannel, input: Int32?, outputs: [Output], options: ChildOptions, mark: DescendantMark?,
        started: ContinuousClock.Instant
    ) {
        self.pid = pid
        self.channel = channel
        self.input = input
        self.outputs = outputs
        self.deadline = options.timeout.map { started + $0 }
        self.killGrace = options.killGrace
        self.killsGroupOnExit = options.killsGroupOnExit
        self.mark = mark
        self.started = started
    }

    /// Starts the supervising thread and the thread that waits for the exit.
    func start() {
        let pid = pid
        let channel = channel
        DedicatedThread.start(name: "child \(pid) exit") {
            var info = siginfo_t()
            // WNOWAIT leaves the child a zombie, so its process group id stays
            // valid until the supervisor has swept the group and reaped it.
            while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0, errno == EINTR {}
            channel.state.withLock { $0.exited = true }
            channel.wake()
        }
        DedicatedThread.start(name: "child \(pid)") { self.run() }
    }

    private func run() {
        var timedOut = false
        var killAt: ContinuousClock.Instant?
        var terminating = false
        while true {
            let now = ContinuousClock.now
            let (exited, terminateRequested, terminateAt) = channel.state.withLock { ($0.exited, $0.terminateRequested, $0.terminateAt) }
            if terminateRequested || terminateAt.map({ now >= $0 }) == true, !terminating {
                terminating = true
                signalGroup(SIGTERM)
                killAt = .now + killGrace
            }
            writeInput()
            if exited {
                drainOutputs()
                break
            }
            if let deadline, !terminating, now >= deadline {
                timedOut = true
                terminating = true
                signalGroup(SIGTERM)
                killAt = now + killGrace
            }
            if let due = killAt, now >= due {
                signalGroup(SIGKILL)
                killAt = nil
            }
            waitForActivity(until: [timedOut ? nil : deadline, killAt, terminating ? nil : terminateAt].compactMap { $0 }.min())
        }
        // Whatever the group left behind dies with it when it was told to stop (or
        // always, when asked): the leader is still a zombie, so the group id is valid.
        if terminating || killsGroupOnExit { signalGroup(SIGKILL) }
        // And what left the group (`setsid`) but still carries the child's mark.
        mark?.killMarked()
        let status = reap()
        finish(status: status, timedOut: timedOut)
    }

    private func signalGroup(_ signal: Int32) {
        kill(-pid, signal)
    }

    private func reap() -> ChildTermination.Status {
        var status: Int32 = 0
        var result: pid_t
        repeat { result = waitpid(pid, &status, 0) } while result < 0 && errno == EINTR
        guard result == pid else { return .exited(-1) }
        // WIFSIGNALED / WTERMSIG / WEXITSTATUS are C macros, not imported.
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
    }

    private func waitForActivity(until due: ContinuousClock.Instant?) {
        var descriptors = [pollfd(fd: channel.wakeRead, events: Int16(POLLIN), revents: 0)]
        if let input, channel.state.withLock({ !$0.pendingInput.isEmpty }) {
            descriptors.append(pollfd(fd: input, events: Int16(POLLOUT), revents: 0))
        }
        var polled: [Int] = []
        for (index, output) in outputs.enumerated() where output.wantsInput {
            descriptors.append(pollfd(fd: output.descriptor!, events: Int16(POLLIN), revents: 0))
            polled.append(index)
        }
        var milliseconds: Int32 = -1
        if let due {
            let remaining = (due - .now).components
            milliseconds = Int32(clamping: max(0, remaining.seconds * 1000 + remaining.attoseconds / 1_000_000_000_000_000 + 1))
        }
        guard poll(&descriptors, nfds_t(descriptors.count), milliseconds) > 0 else { return }
        if descriptors[0].revents != 0 { channel.drainWakes() }
        for (offset, index) in polled.enumerated() where descriptors[descriptors.count - polled.count + offset].revents != 0 {
            _ = readSlice(index)
        }
    }

    /// Feeds as much pending input as the pipe takes without blocking; closes
    /// it once empty and asked to, or when the child stopped reading.
    private func writeInput() {
        guard let descriptor = input else { return }
        let close = channel.state.withLock { state -> Bool in
            while !state.pendingInput.isEmpty {
                let written = state.pendingInput.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
                if written > 0 {
                    state.pendingInput.removeFirst(written)
                } else if written < 0, errno == EAGAIN || errno == EINTR {
                    return false
                } else {
                    state.pendingInput.removeAll()
                    return true
                }
            }
            return state.closeInputRequested || state.exited
        }
        if close {
            Glibc.close(descriptor)
            input = nil
        }
    }

    /// Reads one slice from output `index`, if there is one; closes it at end of
    /// file or on an error. True when bytes were read.
    private func readSlice(_ index: Int) -> Bool {
        guard let descriptor = outputs[index].descriptor else { return false }
        var buffer = [UInt8](repeating: 0, count: Self.sliceBytes)
        var count: Int
        repeat {
            count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        } while count < 0 && errno == EINTR
        if count > 0 {
            buffer.withUnsafeBufferPointer { outputs[index].collector.append(UnsafeBufferPointer(rebasing: $0[..<count])) }
            return true
        }
        if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) {
            Glibc.close(descriptor)
            outputs[index].descriptor = nil
        }
        return false
    }

    /// After the exit: takes what is already in the pipes (a bounded amount),
    /// without waiting for descendants that may hold them open.
    private func drainOutputs() {
        for index in outputs.indices {
            var slices = 0
            while slices < Self.drainSlices, readSlice(index) { slices += 1 }
            if let descriptor = outputs[index].descriptor {
                Glibc.close(descriptor)
                outputs[index].descriptor = nil
            }
        }
    }

    private func finish(status: ChildTermination.Status, timedOut: Bool) {
        if let input { close(input) }
        input = nil
        for index in outputs.indices {
            outputs[index].collector.finish()
            outputs[index].lines?.finish()
        }
        let termination = ChildTermination(
            status: status, timedOut: timedOut, duration: .now - started,
            stdoutTail: outputs[0].collector.tail, stderrTail: outputs[1].collector.tail)
        channel.finish(with: termination)
    }
}

@preconcurrency import Glibc
import Dispatch
import Synchronization
import TagKit

/// The simulator's moving part: one thread that reads the host's frames from
/// the pseudo-terminal, runs them on the chip, and answers — paced like the
/// real UART when asked. Everything it shares with callers sits in one mutex.
final class SimulatorEngine: Sendable {
    struct State: Sendable {
        var chip: PN532Chip
        var field = RFField()
        var decoder = PN532FrameDecoder()
        var pending: PendingPoll?
        var nextCheck: ContinuousClock.Instant?
        var lastResponse: [UInt8]?
        var counters = PN532Counters()
    }

    let terminal: PseudoTerminal
    let pacing: Pacing
    let state: Mutex<State>
    private let wakeRead: Int32, wakeWrite: Int32
    private let running = Atomic<Bool>(true)
    private let finished = DispatchSemaphore(value: 0)

    init(terminal: PseudoTerminal, pacing: Pacing) throws(PN532SimulatorError) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw PN532SimulatorError("pipe") }
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        self.terminal = terminal
        self.pacing = pacing
        state = Mutex(State(chip: PN532Chip(pacing: pacing)))
    }

    /// Changes the field and lets a waiting poll see the change.
    func withField<Result>(_ body: (inout RFField) -> Result) -> Result {
        let result = state.withLock { body(&$0.field) }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
        return result
    }

    func run() {
        defer { finished.signal() }
        while running.load(ordering: .acquiring) {
            var entries = [
                pollfd(fd: terminal.chipSide, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
            ]
            let next = state.withLock { $0.nextCheck }
            let timeout = next.map { Self.milliseconds(until: $0) } ?? -1
            guard poll(&entries, 2, timeout) >= 0 || errno == EINTR else { return }
            if entries[1].revents & Int16(POLLIN) != 0 { drainWakePipe() }
            if entries[0].revents & Int16(POLLIN) != 0 {
                let bytes = terminal.receive()
                if !bytes.isEmpty { handle(bytes) }
            } else if entries[0].revents & Int16(POLLHUP | POLLERR) != 0 {
                pause(.milliseconds(50))  // no device side open: wait instead of spinning
            }
            resumePending()
        }
    }

    func stop() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
        _ = finished.wait(timeout: .now() + .seconds(5))
        terminal.close()
    }

    /// The wake pipe lives as long as the engine, so `withField` after `stop()` never writes to a reused descriptor.
    deinit {
        close(wakeRead)
        close(wakeWrite)
    }

    private static func milliseconds(until instant: ContinuousClock.Instant) -> Int32 {
        let remaining = instant - .now
        guard remaining > .zero else { return 0 }
        let (seconds, attoseconds) = remaining.components
        return Int32(min(seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1, 60_000))
    }

    private func drainWakePipe() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while buffer.withUnsafeMutableBytes({ read(wakeRead, $0.baseAddress, $0.count) }) > 0 {}
    }

    private func handle(_ bytes: [UInt8]) {
        let frames = state.withLock { state in
            state.counters.bytesIn += bytes.count
            return state.decoder.feed(bytes)
        }
        for frame in frames {
            switch frame {
            case .ack:
                state.withLock { state in
                    if state.pending != nil { state.counters.abortedCommands += 1 }
                    state.pending = nil
                    state.nextCheck = nil
                }
            case .nack:
                let last = state.withLock { state in
                    state.counters.nacksReceived += 1
                    return state.lastResponse
                }
                if let last { send(last) }
            case .malformed, .applicationError:
                state.withLock {
                    $0.counters.malformedFrames += 1
                    $0.counters.nacksSent += 1
                }
                send(PN532Frame.nack)
            case .command(let command):
                run(command)
            }
        }
    }

    private func run(_ command: [UInt8]) {
        pause(pacing.transfer(command.count + 8))
        let outcome = state.withLock { state in
            state.counters.commands[PN532Command.name(of: command[0]), default: 0] += 1
            state.counters.acksSent += 1
            if state.pending != nil { state.counters.abortedCommands += 1 }
            state.pending = nil
            state.nextCheck = nil
            return state.chip.execute(command, field: &state.field, now: .now)
        }
        send(PN532Frame.ack)
        switch outcome {
        case .reply(let data, let delay):
            pause(delay)
            respond(to: command[0], data)
        case .syntaxError:
            state.withLock {
                $0.counters.syntaxErrors += 1
                $0.lastResponse = PN532Frame.applicationError
            }
            send(PN532Frame.applicationError)
        case .waiting(let pending):
            state.withLock {
                $0.pending = pending
                $0.nextCheck = pending.deadline
            }
        }
    }

    private func resumePending() {
        let answer: (code: UInt8, data: [UInt8])? = state.withLock { state in
            guard var pending = state.pending else { return nil }
            let (answer, next) = state.chip.resume(&pending, field: &state.field, now: .now)
            state.pending = pending
            state.nextCheck = next
            guard let answer else { return nil }
            state.pending = nil
            return (pending.code, answer)
        }
        if let answer { respond(to: answer.code, answer.data) }
    }

    private func respond(to code: UInt8, _ data: [UInt8]) {
        let frame = PN532Frame.encode(tfi: PN532Frame.chipToHost, [code &+ 1] + data)
        state.withLock { state in
            state.lastResponse = frame
            state.counters.tagExchanges = state.chip.tagExchanges
            state.counters.tagTimeouts = state.chip.tagTimeouts
            state.counters.activations = state.chip.activations
        }
        send(frame)
    }

    private func send(_ bytes: [UInt8]) {
        pause(pacing.transfer(bytes.count))
        state.withLock { $0.counters.bytesOut += bytes.count }
        terminal.send(bytes)
    }

    private func pause(_ duration: Duration) {
        guard duration > .zero else { return }
        let (seconds, attoseconds) = duration.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0, errno == EINTR { request = remaining }
    }
}

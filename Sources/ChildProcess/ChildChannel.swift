import Glibc
import Synchronization

/// What the caller's side (`ChildProcess`) and the supervising thread share:
/// requests one way, the result the other, and a pipe that wakes the thread.
final class ChildChannel: Sendable {
    struct State {
        var pendingInput: [UInt8] = []
        var closeInputRequested = false
        var terminateRequested = false
        /// When to terminate the child unless it exits first (`ChildProcess.stop(grace:)`).
        var terminateAt: ContinuousClock.Instant?
        var exited = false
        var termination: ChildTermination?
        var waiters: [CheckedContinuation<ChildTermination, Never>] = []
    }

    let state = Mutex(State())
    /// Read by the supervisor's `poll`; both ends live as long as the channel,
    /// so a late `wake()` never writes to a reused descriptor.
    let wakeRead: Int32
    private let wakeWrite: Int32

    init() throws(ChildProcessError) {
        (wakeRead, wakeWrite) = try PipeSet.makePipe()
        for end in [wakeRead, wakeWrite] { _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK) }
    }

    deinit {
        close(wakeRead)
        close(wakeWrite)
    }

    /// Makes the supervisor look at the state again (a full pipe already means "look").
    func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    /// Empties the wake pipe.
    func drainWakes() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(wakeRead, &buffer, buffer.count) > 0 {}
    }

    /// Publishes the result and resumes everyone waiting for it.
    func finish(with termination: ChildTermination) {
        let waiters = state.withLock { state in
            state.termination = termination
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: termination) }
    }
}

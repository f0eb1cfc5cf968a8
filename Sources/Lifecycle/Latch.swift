import Synchronization

/// A one-way signal between tasks: `open()` once, and every `wait()` — before or
/// after — returns. A waiting task that is cancelled returns at once too, so a
/// latch never keeps a cancelled task group from ending.
public final class Latch: Sendable {
    private struct State {
        var isOpen = false
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// Opens the latch: every waiter returns, and later waits return at once.
    public func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [:] }
            return state.waiters.values
        }
        for waiter in waiters { waiter.resume() }
    }

    public var isOpen: Bool { state.withLock { $0.isOpen } }

    /// Returns once the latch is open, or the calling task is cancelled.
    public func wait() async {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let waiting = state.withLock { state in
                    guard !state.isOpen, !Task.isCancelled else { return false }
                    state.waiters[id] = continuation
                    return true
                }
                if !waiting { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }

    /// Returns once the latch is open, even if the calling task is cancelled
    /// (to join threads that were asked to stop).
    public func waitIgnoringCancellation() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waiting = state.withLock { state in
                guard !state.isOpen else { return false }
                state.waiters[state.nextWaiter] = continuation
                state.nextWaiter += 1
                return true
            }
            if !waiting { continuation.resume() }
        }
    }

    /// Returns true once the latch is open, false when `deadline` passes first —
    /// even if the calling task is cancelled: a deadline, not cancellation, ends
    /// the wait (the waiting runs in a task of its own that ends by the deadline).
    public func wait(until deadline: ContinuousClock.Instant) async -> Bool {
        await Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.wait() }
                group.addTask { try? await Task.sleep(until: deadline) }
                await group.next()
                group.cancelAll()
            }
            return self.isOpen
        }.value
    }

    /// Runs `operation` until it ends or the latch opens, whichever comes first;
    /// when the latch opens first, `operation`'s task is cancelled and awaited.
    public func cancelling(_ operation: @escaping @Sendable () async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await operation() }
            group.addTask { await self.wait() }
            try await group.next()
            group.cancelAll()
            try await group.waitForAll()
        }
    }
}

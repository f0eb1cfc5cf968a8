import Synchronization

/// At most `capacity` operations at once; the others wait in arrival order.
/// A task cancelled before it gets a slot (at shutdown) stops waiting at once
/// and its operation never runs.
final class ConcurrencyLimit: Sendable {
    /// Why `run` has no result.
    enum Failure<OperationFailure: Error>: Error {
        /// The task was cancelled before a slot came free; the operation did not run.
        case cancelledWhileWaiting
        /// The operation ran and threw.
        case failed(OperationFailure)
    }

    private struct Waiter {
        var ticket: UInt64
        /// Resumed with true when handed a slot, false when its task was cancelled.
        var continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var running = 0
        var waiting: [Waiter] = []
        var nextTicket: UInt64 = 0
    }

    /// Commands that may run at once.
    let capacity: Int
    private let state = Mutex(State())

    init(_ capacity: Int) { self.capacity = max(1, capacity) }

    /// Tasks waiting for a slot now.
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Runs `operation` once a slot is free, unless the task is cancelled first.
    func run<Result: Sendable, OperationFailure: Error>(
        _ operation: () async throws(OperationFailure) -> Result
    ) async throws(Failure<OperationFailure>) -> Result {
        guard await acquire() else { throw .cancelledWhileWaiting }
        defer { release() }
        do {
            return try await operation()
        } catch {
            throw .failed(error)
        }
    }

    /// True once this task holds a slot; false when it was cancelled first.
    private func acquire() async -> Bool {
        let ticket = state.withLock { state in
            state.nextTicket += 1
            return state.nextTicket
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // Decided under the lock, so a cancellation handler either finds this waiter or is seen here.
                let decided = state.withLock { state -> Bool? in
                    if Task.isCancelled { return false }
                    if state.running < capacity {
                        state.running += 1
                        return true
                    }
                    state.waiting.append(Waiter(ticket: ticket, continuation: continuation))
                    return nil
                }
                if let decided { continuation.resume(returning: decided) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiting.firstIndex(where: { $0.ticket == ticket }) else { return nil }
                return state.waiting.remove(at: index)
            }
            waiter?.continuation.resume(returning: false)
        }
    }

    /// Hands the slot to the longest waiter, or frees it.
    private func release() {
        let next = state.withLock { state -> Waiter? in
            if state.waiting.isEmpty {
                state.running -= 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.continuation.resume(returning: true)
    }
}

import Synchronization

/// One message handed to `MQTTConnection.enqueue`: await `delivered()` to
/// learn whether the broker acknowledged it or it was handed back.
public struct MQTTDelivery: Sendable {
    let outcome: Outcome
    /// Takes the message back out of the backlog if it has not been handed to the broker yet.
    let withdraw: @Sendable () -> Void

    /// Returns when the broker acknowledged the message (for QoS 0: when it
    /// was written to the socket); throws when it was handed back (not
    /// delivered within its hold time), the connection stopped, or the
    /// waiting task was cancelled while the message was still only queued
    /// (then it is withdrawn: it will not go out later). A message already
    /// in flight when the task is cancelled is still waited for.
    public func delivered() async throws(MQTTError) {
        let result = await withTaskCancellationHandler {
            await outcome.value()
        } onCancel: {
            withdraw()
        }
        if case .failure(let error) = result { throw error }
    }

    /// The result of one delivery, set once by the connection thread, awaited by at most one caller.
    final class Outcome: Sendable {
        private enum State {
            case pending
            case waiting(CheckedContinuation<Result<Void, MQTTError>, Never>)
            case done(Result<Void, MQTTError>)
        }

        private let state = Mutex(State.pending)

        func complete(_ result: Result<Void, MQTTError>) {
            let waiter = state.withLock { state -> CheckedContinuation<Result<Void, MQTTError>, Never>? in
                guard case .pending = state else {
                    if case .waiting(let waiter) = state {
                        state = .done(result)
                        return waiter
                    }
                    return nil
                }
                state = .done(result)
                return nil
            }
            waiter?.resume(returning: result)
        }

        func value() async -> Result<Void, MQTTError> {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Result<Void, MQTTError>? in
                    if case .done(let result) = state { return result }
                    state = .waiting(continuation)
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }
}

import Dispatch
import Synchronization

/// The daemon's reload, one at a time, holding no thread while it waits. A SIGHUP, a control client and the live
/// page can each ask for a reload; two running at once could both load the file and finish in the other order,
/// leaving the older file running after the newer one was reported as loaded. Each reload awaits the one asked
/// before it, so they run in the order asked; a caller awaits its own (a thread of its own waits with `waiting()`).
public final class SerialReload: Sendable {
    /// The reload asked last: the next one runs after it.
    private let last = Mutex<Task<ReloadOutcome, Never>?>(nil)
    private let reload: @Sendable () async -> ReloadOutcome

    public init(_ reload: @escaping @Sendable () async -> ReloadOutcome) {
        self.reload = reload
    }

    /// Runs the reload once the ones asked before it have ended, and returns its outcome. The reload runs to its
    /// end even when the caller is cancelled: a config half taken is no outcome.
    public func callAsFunction() async -> ReloadOutcome {
        let turn = last.withLock { last in
            let previous = last
            let turn = Task {
                _ = await previous?.value
                return await reload()
            }
            last = turn
            return turn
        }
        return await turn.value
    }

    /// The same, for a thread that is not one of Swift's pool (a control session, the HTTP listener): it waits
    /// for the outcome on its own thread, as it waits for a reader's answer to a tag job.
    public func waiting() -> ReloadOutcome {
        let outcome = Mutex<ReloadOutcome?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let result = await self()
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return outcome.withLock { $0 }!
    }
}

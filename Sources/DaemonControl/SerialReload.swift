import Synchronization

/// The daemon's reload, one at a time. A SIGHUP, a control client and the live page can each ask for a
/// reload; two running at once could both load the file and finish in the other order, leaving the older
/// file running after the newer one was reported as loaded. A caller waits for the reload in progress.
public final class SerialReload: Sendable {
    private let inProgress = Mutex<Void>(())
    private let reload: @Sendable () -> ReloadOutcome

    public init(_ reload: @escaping @Sendable () -> ReloadOutcome) {
        self.reload = reload
    }

    /// Runs the reload once the one in progress (if any) has ended, and returns its outcome.
    public func callAsFunction() -> ReloadOutcome {
        inProgress.withLock { _ in reload() }
    }
}

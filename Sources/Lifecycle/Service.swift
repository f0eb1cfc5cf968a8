/// A long-lived part of the daemon — a reader, the router, a broker connection:
/// one `run()` that does the work until its task is cancelled (the shape of
/// swift-service-lifecycle's `Service`, kept small).
///
/// An implementer guarantees: `run` returns soon after cancellation, having
/// released what it holds (threads joined, connections closed); it may also
/// return by itself when its work is done (the end of an input). It throws only
/// for a failure that should stop the daemon.
public protocol Service: Sendable {
    func run() async throws
}

extension Service {
    /// Runs the service while `body` runs, then cancels it and waits for it to
    /// end: a scope for a service's lifetime (tests, one-shot commands).
    public func whileRunning<Result: Sendable>(_ body: () async throws -> Result) async throws -> Result {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                do { try await self.run() } catch is CancellationError {}
            }
            let result = try await body()
            group.cancelAll()
            try await group.waitForAll()
            return result
        }
    }
}

/// Runs services side by side in one task group, and stops them in order.
///
/// - A service that throws fails the group: the others are cancelled, and `run` rethrows.
/// - A graceful shutdown — `shutdown()`, or any service returning by itself (an
///   input that ended) — goes through the members in the order given, each after
///   the one before has ended: a `.cancel` member is cancelled; a `.drain` member
///   is left to end by itself (a consumer whose input ends with the members before
///   it; it keeps its own deadline, as the router does with `shutdown_timeout`).
public final class ServiceGroup: Sendable {
    /// How a member stops in a graceful shutdown.
    public enum Stop: Sendable {
        /// Its task is cancelled.
        case cancel
        /// It is awaited: it ends by itself once the members before it have ended.
        case drain
    }

    /// One service of the group, with a name for the log and how it stops.
    public struct Member: Sendable {
        public let name: String
        public let service: any Service
        public let stop: Stop

        public init(_ name: String, _ service: any Service, stop: Stop = .cancel) {
            self.name = name
            self.service = service
            self.stop = stop
        }
    }

    private let members: [Member]
    private let shutdownRequested = Latch()
    private let cancelled: [Latch]
    private let ended: [Latch]

    /// `members` in shutdown order (sources before the router that consumes them).
    public init(_ members: [Member]) {
        self.members = members
        cancelled = members.map { _ in Latch() }
        ended = members.map { _ in Latch() }
    }

    /// Begins the graceful shutdown (from any task: a signal handler); `run` returns when it is done.
    public func shutdown() { shutdownRequested.open() }

    /// Runs every member until the group has shut down; rethrows the first failure.
    public func run() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, member) in members.enumerated() {
                let (cancelled, ended, shutdownRequested) = (cancelled[index], ended[index], shutdownRequested)
                group.addTask {
                    defer {
                        ended.open()
                        shutdownRequested.open()
                    }
                    do {
                        try await cancelled.cancelling { try await member.service.run() }
                    } catch is CancellationError {
                        // ended because it was cancelled: that is how a member stops
                    } catch {
                        Log.error("service failed", JSONObject(["service": .string(member.name), "error": .string("\(error)")]))
                        throw error
                    }
                }
            }
            group.addTask { await self.stopInOrder() }
            // `next` rethrows the first failure at once; leaving the body then cancels the rest.
            while try await group.next() != nil {}
        }
    }

    /// Waits for the shutdown to begin, then stops the members one after another.
    private func stopInOrder() async {
        await shutdownRequested.wait()
        for (index, member) in members.enumerated() {
            if Task.isCancelled { return }
            if member.stop == .cancel { cancelled[index].open() }
            await ended[index].wait()
        }
    }
}

import OrderedJSON
import Synchronization
import SystemKit

/// Runs services side by side, and stops them in order, each within deadlines.
///
/// - A service that throws fails the group: the others are cancelled, and `run` rethrows.
/// - A graceful shutdown — `shutdown()`, or any service returning by itself (an
///   input that ended) — goes through the members in the order given, each after
///   the one before has ended: a `.cancel` member is cancelled; a `.graceful`
///   member gets its graceful-shutdown signal (`GracefulShutdown`); a `.drain`
///   member is left to end by itself (a consumer whose input ends with the members
///   before it). A `.graceful` or `.drain` member still running after
///   `Deadlines.graceful` is cancelled; a member still running `Deadlines.cancellation`
///   after its cancellation is left behind. Either is logged with the member's
///   name and listed in the `Report`, and the group goes on: no stop outlasts
///   the sum of the deadlines of its members.
///
/// Each member runs in a task of its own, not a child of `run`'s: a task group
/// cannot end before all its children, and the group must be able to end
/// without a member that ignores its deadlines (the process then exits anyway).
public final class ServiceGroup: Sendable {
    /// How a member stops in a graceful shutdown.
    public enum Stop: Sendable {
        /// Its task is cancelled.
        case cancel
        /// It gets the graceful-shutdown signal; cancelled if still running after the graceful deadline.
        case graceful
        /// It is awaited: it ends by itself once the members before it have ended;
        /// cancelled if still running after the graceful deadline.
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

    /// How long each member may take to stop (nil: as long as it takes).
    public struct Deadlines: Sendable {
        /// From a `.graceful` or `.drain` member's turn to its cancellation.
        public var graceful: Duration?
        /// From a member's cancellation to the group going on without it.
        public var cancellation: Duration?

        public init(graceful: Duration? = nil, cancellation: Duration? = nil) {
            self.graceful = graceful
            self.cancellation = cancellation
        }
    }

    /// The members that outlived a deadline, by name.
    public struct Report: Sendable, Equatable {
        /// Cancelled because they were still running at the graceful deadline.
        public var notFinishedGracefully: [String] = []
        /// Still running at the cancellation deadline: the group ended without them.
        public var leftRunning: [String] = []
    }

    private let members: [Member]
    private let deadlines: Deadlines
    private let shutdownRequested = Latch()
    private let graceful: [Latch]
    private let cancelled: [Latch]
    private let ended: [Latch]
    /// The first failure of a member, or the cancellation of `run` itself: stop everything now.
    private let abort = Mutex<(any Error)?>(nil)

    /// `members` in shutdown order (sources before the router that consumes them).
    public init(_ members: [Member], deadlines: Deadlines = Deadlines()) {
        self.members = members
        self.deadlines = deadlines
        graceful = members.map { _ in Latch() }
        cancelled = members.map { _ in Latch() }
        ended = members.map { _ in Latch() }
    }

    /// Begins the graceful shutdown (from any task: a signal handler); `run` returns when it is done.
    public func shutdown() { shutdownRequested.open() }

    /// Runs every member until the group has shut down; rethrows the first failure.
    @discardableResult
    public func run() async throws -> Report {
        for index in members.indices { start(index) }
        let report = await withTaskCancellationHandler {
            // Not cancelled with `run`'s task: when that is cancelled, the members are, and their ends awaited.
            await Task { await self.stopInOrder() }.value
        } onCancel: {
            abort.withLock { $0 = $0 ?? CancellationError() }
            shutdownRequested.open()
        }
        if let failure = abort.withLock({ $0 }), !(failure is CancellationError) { throw failure }
        return report
    }

    private func start(_ index: Int) {
        let (member, graceful, cancelled, ended, shutdownRequested) = (members[index], graceful[index], cancelled[index], ended[index], shutdownRequested)
        Task {
            defer {
                ended.open()
                shutdownRequested.open()
            }
            do {
                try await GracefulShutdown.withSignal(graceful) {
                    try await cancelled.cancelling { try await member.service.run() }
                }
            } catch is CancellationError {
                // ended because it was cancelled: that is how a member stops
            } catch {
                Log.error("service failed", JSONObject(["service": .string(member.name), "error": .string("\(error)")]))
                abort.withLock { $0 = $0 ?? error }
            }
        }
    }

    /// Waits for the shutdown to begin, then stops the members one after another
    /// (all at once when a member failed or `run` was cancelled).
    private func stopInOrder() async -> Report {
        await shutdownRequested.wait()
        var report = Report()
        if abort.withLock({ $0 != nil }) {
            for latch in cancelled { latch.open() }
            for index in members.indices where !(await waitForEnd(index, within: deadlines.cancellation)) {
                leftRunning(index, &report)
            }
            return report
        }
        for (index, member) in members.enumerated() {
            if abort.withLock({ $0 != nil }) { for latch in cancelled { latch.open() } }
            if member.stop == .graceful { graceful[index].open() }
            if member.stop != .cancel, !(await waitForEnd(index, within: deadlines.graceful)) {
                Log.warning("service did not finish within the graceful shutdown deadline; cancelling it",
                            JSONObject(["service": .string(member.name), "deadline_ms": .int(Self.milliseconds(deadlines.graceful))]))
                report.notFinishedGracefully.append(member.name)
            }
            cancelled[index].open()
            if !(await waitForEnd(index, within: deadlines.cancellation)) { leftRunning(index, &report) }
        }
        return report
    }

    private func leftRunning(_ index: Int, _ report: inout Report) {
        Log.error("service did not end within the cancellation deadline; stopping without it",
                  JSONObject(["service": .string(members[index].name), "deadline_ms": .int(Self.milliseconds(deadlines.cancellation))]))
        report.leftRunning.append(members[index].name)
    }

    /// True once member `index` has ended; false when `limit` passed first.
    private func waitForEnd(_ index: Int, within limit: Duration?) async -> Bool {
        guard let limit else {
            await ended[index].waitIgnoringCancellation()
            return true
        }
        return await ended[index].wait(until: .now + limit)
    }

    private static func milliseconds(_ duration: Duration?) -> Int64 {
        guard let duration else { return 0 }
        let (seconds, attoseconds) = duration.components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}

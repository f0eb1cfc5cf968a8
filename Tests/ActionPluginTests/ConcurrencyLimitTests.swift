import Synchronization
import Testing

@testable import ShellPlugin

/// The shell plugin's `max_concurrent` gate: waiters keep arrival order, and a
/// waiter whose task is cancelled (shutdown) leaves at once without running.
@Suite(.timeLimit(.minutes(1))) struct ConcurrencyLimitTests {
    /// An operation that holds its slot until `open()`.
    final class Gate: Sendable {
        private let opened: AsyncStream<Void>
        private let opener: AsyncStream<Void>.Continuation
        private let entered: AsyncStream<Void>
        private let enterer: AsyncStream<Void>.Continuation

        init() {
            (opened, opener) = AsyncStream.makeStream()
            (entered, enterer) = AsyncStream.makeStream()
        }

        /// Runs in the slot: reports that it is in, then waits to be opened.
        func hold() async {
            enterer.yield()
            for await _ in opened {}
        }

        /// Waits until `hold` runs.
        func waitUntilEntered() async {
            for await _ in entered { return }
        }

        func open() { opener.finish() }
    }

    /// What ran, in order.
    final class Runs: Sendable {
        private let names = Mutex<[String]>([])
        func record(_ name: String) { names.withLock { $0.append(name) } }
        var all: [String] { names.withLock { $0 } }
    }

    private static func waitForWaiters(_ count: Int, on limit: ConcurrencyLimit) async {
        while limit.waitingCount < count { await Task.yield() }
    }

    private static func isCancelledWhileWaiting(_ result: Result<Void, any Error>) -> Bool {
        guard case .failure(let error) = result, case .cancelledWhileWaiting? = error as? ConcurrencyLimit.Failure<Never> else { return false }
        return true
    }

    @Test func aWaiterCancelledBeforeItsTurnLeavesAtOnceWithoutRunning() async throws {
        let limit = ConcurrencyLimit(1)
        let gate = Gate(), runs = Runs()
        let holder = Task { try await limit.run { await gate.hold() } }
        await gate.waitUntilEntered()
        let waiter = Task { try await limit.run { runs.record("waiter") } }
        await Self.waitForWaiters(1, on: limit)

        waiter.cancel()
        // Returns while the holder still has the only slot.
        #expect(Self.isCancelledWhileWaiting(await waiter.result))
        #expect(limit.waitingCount == 0)

        gate.open()
        try await holder.value
        try await limit.run { runs.record("after") }
        #expect(runs.all == ["after"], "the cancelled operation ran, or the slot was not given back")
    }

    @Test func anAlreadyCancelledTaskDoesNotStartEvenWithAFreeSlot() async throws {
        let limit = ConcurrencyLimit(2)
        let runs = Runs()
        let cancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await limit.run { runs.record("cancelled") }
        }
        #expect(Self.isCancelledWhileWaiting(await cancelled.result))
        try await limit.run { runs.record("one") }
        try await limit.run { runs.record("two") }
        #expect(runs.all == ["one", "two"])
    }

    @Test func waitersKeepArrivalOrderAroundACancelledOne() async throws {
        let limit = ConcurrencyLimit(1)
        let gate = Gate(), runs = Runs()
        let holder = Task { try await limit.run { await gate.hold() } }
        await gate.waitUntilEntered()
        var waiters: [String: Task<Void, any Error>] = [:]
        for (index, name) in ["b", "c", "d"].enumerated() {
            waiters[name] = Task { try await limit.run { runs.record(name) } }
            await Self.waitForWaiters(index + 1, on: limit)
        }
        waiters["c"]?.cancel()
        #expect(limit.waitingCount == 2)

        gate.open()
        try await holder.value
        try await waiters["b"]?.value
        try await waiters["d"]?.value
        #expect(Self.isCancelledWhileWaiting(try #require(await waiters["c"]?.result)))
        #expect(runs.all == ["b", "d"])
    }
}

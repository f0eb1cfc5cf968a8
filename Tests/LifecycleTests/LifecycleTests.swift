import Synchronization
import Testing

@testable import Lifecycle
@testable import SystemKit

@Suite struct BoundedQueueTests {
    @Test func pushDropsTheOldestWhenFull() async {
        let queue = BoundedQueue<Int>(capacity: 2)
        #expect(queue.push(1) == nil)
        #expect(queue.push(2) == nil)
        #expect(queue.push(3) == 1)
        queue.finish()
        #expect(queue.push(4) == 4, "refused after finish")
        #expect(await queue.next() == 2)
        #expect(await queue.next() == 3)
        #expect(await queue.next() == nil)
    }

    @Test func nextReturnsNilWhenItsTaskIsCancelled() async {
        let queue = BoundedQueue<Int>(capacity: 1)
        let waiting = Task { await queue.next() }
        waiting.cancel()
        #expect(await waiting.value == nil)
        queue.push(7)
        #expect(await queue.next() == 7, "the element was kept for the next consumer")
    }

    @Test func sendWaitsForRoomInOrder() async {
        let queue = BoundedQueue<Int>(capacity: 1)
        #expect(await queue.send(1))
        let senders = Task {
            #expect(await queue.send(2))
            #expect(await queue.send(3))
        }
        #expect(await queue.next() == 1)
        #expect(await queue.next() == 2)
        #expect(await queue.next() == 3)
        await senders.value
        #expect(queue.count == 0)
    }

    @Test func aCancelledSendAddsNothing() async {
        let queue = BoundedQueue<Int>(capacity: 1)
        // The waiting lane full (a push would fill the live lane and leave `send` room: then the
        // sender added 2 whenever it ran before its cancellation, as `make stress` found once).
        #expect(await queue.send(1))
        let sender = Task { await queue.send(2) }
        sender.cancel()
        #expect(await sender.value == false)
        #expect(queue.drain() == [1])
    }

    /// Issue 8: a drained backlog gives its storage back instead of keeping a burst's size.
    @Test func aDrainedQueueGivesBackItsGrownStorage() async {
        let queue = BoundedQueue<Int>(capacity: 100_000)
        for value in 0..<50_000 { queue.push(value) }
        #expect(queue.state.withLock { $0.live.buffer.capacity } >= 50_000)
        for _ in 0..<49_999 { _ = await queue.next() }
        #expect(await queue.next() == 49_999)
        #expect(queue.state.withLock { $0.live.buffer.capacity } <= 256)
        queue.push(1)
        #expect(queue.drain() == [1])
    }

    /// Issue 19: a push while a sender waited for room handed the room to the
    /// sender and appended the push too — capacity + 1 held — after dropping
    /// the oldest element a sender had been promised would never be dropped.
    @Test func aPushWhileASenderWaitsDropsNothingSentAndKeepsEachLaneBounded() async {
        let queue = BoundedQueue<Int>(capacity: 2)
        #expect(await queue.send(1))
        #expect(await queue.send(2))
        let sender = Task { await queue.send(3) }
        while queue.state.withLock({ $0.senders.count }) == 0 { await Task.yield() }
        #expect(queue.push(10) == nil, "a push drops only live elements, never a sent one")
        #expect(queue.state.withLock { $0.waiting.count } == 2)
        #expect(queue.state.withLock { $0.senders.count } == 1, "the sender still waits for room")
        #expect(queue.push(11) == nil)
        #expect(queue.push(12) == 10, "a full live lane drops its own oldest")
        #expect(queue.count == 4, "two lanes of capacity 2")
        #expect(await queue.next() == 11, "live elements first")
        #expect(await queue.next() == 12)
        #expect(await queue.next() == 1)
        #expect(await sender.value, "room made by the consumer goes to the waiting sender")
        #expect(queue.drain() == [2, 3])
    }

    /// Issue 18: a flood in the waiting lane never holds back a live element.
    @Test func aLiveElementOvertakesAFullWaitingLane() async {
        let queue = BoundedQueue<Int>(capacity: 1000)
        for value in 0..<1000 { #expect(await queue.send(value)) }
        queue.push(-1)
        #expect(await queue.next() == -1)
        #expect(await queue.next() == 0)
    }

    @Test func aThreadSendsWithBackpressureAndAThreadTakesWhatWaits() async {
        let queue = BoundedQueue<Int>(capacity: 2)
        let sent = Latch()
        let answers = Mutex<[Bool]>([])
        DedicatedThread.start(name: "test sender") {
            for value in 0..<5 {
                let added = queue.sendBlocking(value)
                answers.withLock { $0.append(added) }
            }
            sent.open()
        }
        var taken: [Int] = []
        while taken.count < 5 {
            #expect(queue.state.withLock { $0.waiting.count } <= 2, "the sender waits for room")
            taken += queue.take(waiting: .seconds(10)).elements
        }
        #expect(taken == [0, 1, 2, 3, 4])
        await sent.wait()
        #expect(answers.withLock { $0 } == [true, true, true, true, true])
    }

    /// Several elements at once: what fits goes in together (a waiting consumer gets the
    /// first), the rest waits for room; all arrive in order, and a finished queue refuses.
    @Test func aThreadSendsSeveralAtOnceInOrderWithBackpressure() async {
        let queue = BoundedQueue<Int>(capacity: 3)
        let sent = Latch()
        let answers = Mutex<[Bool]>([])
        DedicatedThread.start(name: "test sender") {
            for start in stride(from: 0, to: 20, by: 5) {
                let added = queue.sendBlocking(contentsOf: Array(start..<start + 5))
                answers.withLock { $0.append(added) }
            }
            sent.open()
        }
        var taken: [Int] = []
        while taken.count < 20, let value = await queue.next() {
            #expect(queue.state.withLock { $0.waiting.count } <= 3, "the sender waits for room")
            taken.append(value)
        }
        #expect(taken == Array(0..<20))
        await sent.wait()
        #expect(answers.withLock { $0 } == [true, true, true, true])
        queue.finish()
        #expect(!queue.sendBlocking(contentsOf: [20, 21]))
        #expect(queue.drain().isEmpty)
    }

    @Test func aBlockedThreadSenderIsRefusedWhenTheQueueFinishes() async {
        let queue = BoundedQueue<Int>(capacity: 1)
        #expect(queue.sendBlocking(1))
        let answer = Mutex<Bool?>(nil)
        let ended = Latch()
        DedicatedThread.start(name: "test sender") {
            let added = queue.sendBlocking(2)
            answer.withLock { $0 = added }
            ended.open()
        }
        while queue.state.withLock({ $0.senders.count }) == 0 { await Task.yield() }
        queue.finish()
        await ended.wait()
        #expect(answer.withLock { $0 } == false)
        #expect(queue.drain() == [1])
    }

    @Test func takeSaysHowManyWereDroppedAndWakesAtFinish() {
        let queue = BoundedQueue<Int>(capacity: 2)
        for value in 0..<5 { queue.push(value) }
        let batch = queue.take(waiting: .seconds(10))
        #expect(batch.elements == [3, 4])
        #expect(batch.dropped == 3)
        DedicatedThread.start(name: "test finisher") { queue.finish() }
        let last = queue.take(waiting: .seconds(600))
        #expect(last.elements.isEmpty && last.dropped == 0)
        #expect(queue.isFinished)
    }

    /// A reload's hand-over: once the old consumer's latch is open, what is pushed or sent waits for the next
    /// consumer — even while the old one still waits in `next` (before `wakeStopped` ends that wait).
    @Test func aStoppedConsumerIsHandedNothingAndTheNextOneTakesOver() async {
        let queue = BoundedQueue<Int>(capacity: 4)
        let stop = Latch()
        let ended = Latch()
        let taken = Mutex<[Int?]>([])
        let consumer = Task {
            let element = await queue.next(until: stop)
            taken.withLock { $0.append(element) }
            ended.open()
        }
        while queue.state.withLock({ $0.consumer == nil }) { await Task.yield() }
        stop.open()
        queue.push(1)
        #expect(await queue.send(2))
        #expect(taken.withLock { $0 }.isEmpty, "handed to a stopped consumer")
        queue.wakeStopped()
        await ended.wait()
        await consumer.value
        #expect(taken.withLock { $0 } == [nil])
        #expect(await queue.next(until: stop) == nil, "an open latch ends every next")
        let next = Latch()
        #expect(await queue.next(until: next) == 1)
        #expect(await queue.next(until: next) == 2)
        queue.wakeStopped()
        queue.push(3)
        #expect(await queue.next(until: next) == 3, "waking a stopped consumer leaves nothing behind for the next one")
    }
}

/// What the services of a test did, in order.
private final class Journal: Sendable {
    private let entries = Mutex<[String]>([])
    func append(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}

/// A service that records its start and end in a shared log, and fails or ends when told.
private struct Recorder: Service {
    enum Ending { case whenCancelled, fails, returns }
    let name: String
    let log: Journal
    let ending: Ending

    struct Failure: Error {}

    func run() async throws {
        log.append("\(name) started")
        defer { log.append("\(name) ended") }
        switch ending {
        case .whenCancelled: await Latch().wait()
        case .fails: throw Failure()
        case .returns: return
        }
    }
}

@Suite struct ServiceGroupTests {
    @Test func aFailureCancelsTheOthersAndIsRethrown() async {
        let log = Journal()
        let group = ServiceGroup([
            .init("a", Recorder(name: "a", log: log, ending: .whenCancelled)),
            .init("b", Recorder(name: "b", log: log, ending: .fails)),
        ])
        await #expect(throws: Recorder.Failure.self) { try await group.run() }
        #expect(log.all.contains("a ended"))
    }

    @Test func aMemberThatReturnsShutsTheGroupDownInOrder() async throws {
        let log = Journal()
        let source = Recorder(name: "source", log: log, ending: .returns)
        let group = ServiceGroup([
            .init("source", source),
            .init("consumer", Recorder(name: "consumer", log: log, ending: .whenCancelled)),
            .init("signals", Recorder(name: "signals", log: log, ending: .whenCancelled)),
        ])
        try await group.run()
        let ends = log.all.filter { $0.hasSuffix("ended") }
        #expect(ends == ["source ended", "consumer ended", "signals ended"])
    }

    @Test func shutdownWaitsForADrainingMemberToEndByItself() async throws {
        let log = Journal()
        let input = Latch()
        /// Ends once `input` is open — as the router ends once the buffer is finished.
        struct Consumer: Service {
            let input: Latch
            let log: Journal
            func run() async {
                await input.waitIgnoringCancellation()
                log.append("consumer drained")
            }
        }
        struct Source: Service {
            let input: Latch
            func run() async {
                await Latch().wait()
                input.open()
            }
        }
        let group = ServiceGroup([.init("source", Source(input: input)), .init("consumer", Consumer(input: input, log: log), stop: .drain)])
        async let running = group.run()
        group.shutdown()
        _ = try await running
        #expect(log.all == ["consumer drained"])
    }
}

/// Shutdown with deadlines: a member that ignores its graceful signal is cancelled
/// at the graceful deadline, one that ignores cancellation is left behind at the
/// cancellation deadline; the group ends either way and names them.
@Suite struct ServiceGroupDeadlineTests {
    /// Ends at its graceful signal.
    struct Polite: Service {
        func run() async { await GracefulShutdown.wait() }
    }

    /// Hears only cancellation.
    struct Deaf: Service {
        let sawGracefulSignal: Latch
        func run() async {
            await Latch().wait()
            if GracefulShutdown.isRequested { sawGracefulSignal.open() }
        }
    }

    /// Ends only when the test releases it.
    struct Stuck: Service {
        let release: Latch
        func run() async { await release.waitIgnoringCancellation() }
    }

    @Test func membersThatIgnoreTheirDeadlinesAreNamedAndLeftBehind() async throws {
        let release = Latch()
        defer { release.open() }
        let sawGracefulSignal = Latch()
        let group = ServiceGroup([
            .init("polite", Polite(), stop: .graceful),
            .init("deaf", Deaf(sawGracefulSignal: sawGracefulSignal), stop: .graceful),
            .init("stuck", Stuck(release: release)),
            .init("last", Polite(), stop: .graceful),
        ], deadlines: .init(graceful: .milliseconds(300), cancellation: .milliseconds(300)))
        group.shutdown()
        let report = try await group.run()
        #expect(report.notFinishedGracefully == ["deaf"])
        #expect(report.leftRunning == ["stuck"])
        #expect(sawGracefulSignal.isOpen, "the deaf member was signalled before it was cancelled")
    }

    @Test func aGracefulMemberIsNotCancelledWhileItFinishes() async throws {
        let finished = Latch()
        /// Takes a while after its signal, then ends by itself.
        struct Finisher: Service {
            let finished: Latch
            func run() async throws {
                await GracefulShutdown.wait()
                try await Task.sleep(for: .milliseconds(50))
                finished.open()
            }
        }
        let group = ServiceGroup([.init("finisher", Finisher(finished: finished), stop: .graceful)], deadlines: .init(graceful: .seconds(60), cancellation: .seconds(1)))
        group.shutdown()
        let report = try await group.run()
        #expect(finished.isOpen, "cancelled while finishing")
        #expect(report.notFinishedGracefully.isEmpty && report.leftRunning.isEmpty)
    }

    /// A member with nothing to finish (a reader) wraps its work in
    /// `GracefulShutdown.cancelling`: the graceful signal cancels it at once, well
    /// before the graceful deadline; outside a group only cancellation ends it.
    @Test func gracefulShutdownCancellingEndsTheWorkAtTheSignal() async throws {
        let cancelled = Latch()
        struct Idle: Service {
            let cancelled: Latch
            func run() async throws {
                try await GracefulShutdown.cancelling {
                    await withTaskCancellationHandler { await Latch().wait() } onCancel: { cancelled.open() }
                }
            }
        }
        let group = ServiceGroup([.init("idle", Idle(cancelled: cancelled), stop: .graceful)], deadlines: .init(graceful: .seconds(60), cancellation: .seconds(60)))
        group.shutdown()
        let report = try await group.run()
        #expect(cancelled.isOpen)
        #expect(report.notFinishedGracefully.isEmpty && report.leftRunning.isEmpty)
    }
}

@Suite struct LatchTests {
    @Test func waitReturnsWhenOpenedOrCancelled() async {
        let latch = Latch()
        let cancelled = Task { await latch.wait() }
        cancelled.cancel()
        await cancelled.value
        #expect(!latch.isOpen)
        async let opened: Void = latch.wait()
        latch.open()
        await opened
        await latch.wait()
        #expect(latch.isOpen)
    }
}

@Suite struct ProgressMonitorTests {
    @Test func aPartIsStalledOnlyWhileSilentForLongerThanItMayBe() {
        let monitor = ProgressMonitor()
        let silence = Mutex<Duration>(.seconds(3))
        let reader = monitor.register { [ProgressMonitor.Report(part: "reader door", silent: silence.withLock { $0 }, allowance: .seconds(5))] }
        _ = monitor.register { [] }
        #expect(monitor.reports.map(\.part) == ["reader door"])
        #expect(monitor.stalled.isEmpty)
        silence.withLock { $0 = .seconds(6) }
        #expect(monitor.stalled.map(\.part) == ["reader door"])
        monitor.unregister(reader)
        #expect(monitor.reports.isEmpty, "a stopped reader is not asked")
    }
}

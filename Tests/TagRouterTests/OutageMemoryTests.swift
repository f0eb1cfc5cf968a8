import Foundation
import Lifecycle
import TagCore
import TagRuntime
import Testing

@testable import TagRouter

/// Issue 8: an outage costs disk, not memory. While an action's target is down
/// its spooled events wait on disk; what the worker holds in memory stays within
/// a bound set by its `queue` size, however many events wait.
@Suite struct OutageMemoryTests {
    /// Sends `events` and returns once every one is written ahead to the spool.
    func writeAhead(_ events: [TagEvent], through buffer: EventBuffer) async {
        let (written, writtenAhead) = AsyncStream.makeStream(of: Void.self)
        for event in events { #expect(await buffer.send(event, acceptance: Acceptance { writtenAhead.yield() })) }
        var accepted = 0
        for await _ in written {
            accepted += 1
            if accepted == events.count { break }
        }
    }

    @Test func aLongOutageHoldsABoundedNumberOfEventsInMemoryAndDeliversAllInOrder() async throws {
        let (probe, queue, count) = (TestProbe(), 20, 5_000)
        probe.failNext(Int.max)
        let state = NSTemporaryDirectory() + "tagrouter-outage-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: state) }
        let router = try makeRouter("""
            routes:
              - name: r
                actions: [{ recorder: { probe: \(probe.id), queue: \(queue), retry: { attempts: 1, backoff: 5ms, max_backoff: 20ms } } }]
            """, stateDirectory: state)
        let events = (0..<count).map { _ in tagEvent() }
        try await router.whileRunning { buffer in
            await writeAhead(events, through: buffer)
            #expect(router.depths["r.0.recorder"]?.spool == count)
            let held = try #require(router.heldInMemory["r.0.recorder"])
            // The queue; up to a queue's worth written ahead behind the head; the batches read back last
            // (a queue's worth, plus the batch that crosses it).
            #expect(held <= 3 * queue + 2, "\(held) of \(count) waiting events held in memory")

            probe.failNext(0)
            let delivered = try await probe.next(count, timeout: .seconds(60))
            #expect(delivered.map(\.eventID) == events.map(\.id))
        }
        #expect(router.counters["r.0.recorder"]?.delivered == count)
        #expect(try FileManager.default.contentsOfDirectory(atPath: state + "/spool/r.0.recorder").isEmpty)
    }

    /// Stopped mid-outage, the worker counts every waiting event as spooled — those
    /// on disk only are read back to be counted — and the next start delivers them all, in order.
    @Test func eventsWaitingOnDiskOnlyAreCountedAtStopAndDeliveredAfterRestart() async throws {
        let (probe, count) = (TestProbe(), 1_000)
        probe.failNext(Int.max)
        let state = NSTemporaryDirectory() + "tagrouter-outage-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: state) }
        let yaml = """
            shutdown_timeout: 50ms
            routes:
              - name: r
                actions: [{ recorder: { probe: \(probe.id), queue: 10, retry: { attempts: 1, backoff: 5ms, max_backoff: 20ms } } }]
            """
        let events = (0..<count).map { _ in tagEvent() }
        let first = try makeRouter(yaml, stateDirectory: state)
        try await first.whileRunning { buffer in await writeAhead(events, through: buffer) }
        #expect(first.counters["r.0.recorder"]?.spooled == count)
        #expect(first.counters["r.0.recorder"]?.delivered == 0)

        probe.failNext(0)
        let second = try makeRouter(yaml, stateDirectory: state)
        try await second.whileRunning { _ in
            let delivered = try await probe.next(count, timeout: .seconds(60))
            #expect(delivered.map(\.eventID) == events.map(\.id))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: state + "/spool/r.0.recorder").isEmpty)
    }
}

import Foundation
import TagCore
import Testing

@testable import TagRouter

/// Issue 8: an outage costs disk, not memory. While an action's target is down
/// its spooled events wait on disk; what the worker holds in memory stays within
/// a bound set by its `queue` size, however many events wait.
@Suite struct OutageMemoryTests {
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
        let (written, writtenAhead) = AsyncStream.makeStream(of: Void.self)
        try await router.whileRunning { buffer in
            for event in events { #expect(await buffer.send(event, acceptance: Acceptance { writtenAhead.yield() })) }
            var accepted = 0
            for await _ in written {
                accepted += 1
                if accepted == count { break }
            }
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
}

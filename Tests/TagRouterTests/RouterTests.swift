import Foundation
import TagCore
import Testing

@testable import TagRouter

@Suite struct RouterTests {
    @Test func firstMatchWinsUnlessContinue() async throws {
        let probe = TestProbe()
        let router = try makeRouter("""
            routes:
              - name: music
                match: { uri: "spotify:*" }
                actions: [{ recorder: { probe: \(probe.id), label: music } }]
                continue: true
              - name: door
                match: { uid: "04:A2:24:B2:C3:5E:80" }
                actions: [{ recorder: { probe: \(probe.id), label: door } }]
              - name: fallback
                actions: [{ recorder: { probe: \(probe.id), label: fallback } }]
            """)
        let events = [
            tagEvent(uri: "spotify:track:1"), tagEvent(uid: "0411223344"), tagEvent(uid: "0411223344", uri: "spotify:x"),
            TagEvent(kind: .tagRemoved, reader: "door"),
        ]
        try await router.whileRunning { buffer in
            for event in events { buffer.offer(event) }
        }
        let records = try await probe.next(5)
        let labels = { (event: TagEvent) in records.filter { $0.eventID == event.id }.map(\.label).sorted() }
        #expect(events.map(labels) == [["door", "music"], ["fallback"], ["fallback", "music"], []])
    }

    @Test func blockedActionDelaysNoOtherAction() async throws {
        let probe = TestProbe()
        let router = try makeRouter("""
            routes:
              - name: both
                actions:
                  - recorder: { probe: \(probe.id), label: slow, block: true }
                  - recorder: { probe: \(probe.id), label: fast }
            """)
        let events = (0..<5).map { _ in tagEvent() }
        try await router.whileRunning { buffer in
            for event in events { buffer.offer(event) }
            let fast = try await probe.next(5, where: { $0.label == "fast" && $0.step == .delivered })
            #expect(fast.map(\.eventID) == events.map(\.id))
            #expect(router.counters["both.0.recorder"]?.delivered == 0)
            probe.open()
            let slow = try await probe.next(5, where: { $0.label == "slow" && $0.step == .delivered })
            #expect(slow.map(\.eventID) == events.map(\.id))
        }
        #expect(router.counters["both.0.recorder"] == { var c = ActionCounters(); c.delivered = 5; return c }())
    }

    /// Without a spool the queue is all there is; with one, events go to disk as they arrive.
    @Test func fullQueueDropsTheOldestOfALiveSourceAndCountsIt() async throws {
        let probe = TestProbe()
        let router = try makeRouter("""
            routes:
              - name: r
                actions:
                  - recorder: { probe: \(probe.id), block: true, queue: 2, spool: false }
                  - recorder: { probe: \(probe.id), label: seen }
            """)
        let events = (0..<6).map { _ in tagEvent() }
        try await router.whileRunning { buffer in
            buffer.offer(events[0])
            _ = try await probe.next(1, where: { $0.step == .began && $0.label == "r" })
            for event in events.dropFirst() { buffer.offer(event) }
            _ = try await probe.next(6, where: { $0.step == .delivered && $0.label == "seen" })
            #expect(router.counters["r.0.recorder"]?.dropped == 3)
            probe.open()
            let delivered = try await probe.next(3, where: { $0.step == .delivered && $0.label == "r" })
            #expect(delivered.map(\.eventID) == [events[0].id, events[4].id, events[5].id])
        }
    }

    @Test func aSourceThatCanWaitIsSlowedDownAndLosesNothing() async throws {
        let probe = TestProbe()
        let router = try makeRouter("""
            event_buffer: 5
            routes:
              - name: r
                actions: [{ recorder: { probe: \(probe.id), block: true, queue: 2 } }]
            """)
        let events = (0..<20).map { _ in tagEvent() }
        try await router.whileRunning { buffer in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { for event in events { #expect(await buffer.send(event)) } }
                // Without waiting, the queue of 2 behind the blocked action would drop most of them.
                _ = try await probe.next(1, where: { $0.step == .began })
                probe.open()
                try await group.waitForAll()
            }
        }
        #expect(router.counters["r.0.recorder"]?.delivered == 20)
        #expect(router.counters["r.0.recorder"]?.dropped == 0)
    }

    @Test func retriesWithBackoffThenDelivers() async throws {
        let probe = TestProbe()
        probe.failNext(2)
        let router = try makeRouter("""
            routes:
              - name: r
                actions: [{ recorder: { probe: \(probe.id), retry: { attempts: 3, backoff: 1ms } } }]
            """)
        let event = tagEvent()
        try await router.whileRunning { buffer in
            buffer.offer(event)
            let delivered = try await probe.next(1)
            #expect(delivered == [ProbeRecord(label: "r", eventID: event.id, attempt: 3, step: .delivered)])
        }
        #expect(router.counters["r.0.recorder"]?.retried == 2)
    }

    @Test func permanentFailureIsCountedNotRetried() async throws {
        let probe = TestProbe()
        probe.failNext(1)
        let router = try makeRouter("""
            routes:
              - name: r
                actions: [{ recorder: { probe: \(probe.id), permanent: true, retry: { attempts: 5, backoff: 1ms } } }]
            """)
        let second = tagEvent()
        try await router.whileRunning { buffer in
            buffer.offer(tagEvent())
            buffer.offer(second)
            let delivered = try await probe.next(1)
            #expect(delivered.map(\.eventID) == [second.id])
        }
        #expect(router.counters["r.0.recorder"]?.failed == 1)
        #expect(router.counters["r.0.recorder"]?.retried == 0)
    }

    @Test func unreachableTargetSpoolsInOrderAndDeliversAfterRestart() async throws {
        let probe = TestProbe()
        probe.failNext(Int.max)
        let state = NSTemporaryDirectory() + "tagrouter-spool-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: state) }
        let yaml = """
            routes:
              - name: r
                actions: [{ recorder: { probe: \(probe.id), retry: { attempts: 1, backoff: 20ms, max_backoff: 50ms } } }]
            """
        let first = try makeRouter(yaml, stateDirectory: state)
        let events = (0..<4).map { _ in tagEvent() }
        try await first.whileRunning { buffer in
            for event in events { buffer.offer(event) }
            _ = try await probe.next(2, where: { $0.step == .failed })
        }
        #expect(first.counters["r.0.recorder"]?.spooled == 4)
        #expect(Spool(directory: state + "/spool/r.0.recorder").recoverEntries().map(\.delivery.event.id) == events.map(\.id))

        probe.failNext(0)
        let second = try makeRouter(yaml, stateDirectory: state)
        let later = tagEvent()
        try await second.whileRunning { buffer in
            buffer.offer(later)
            let delivered = try await probe.next(5)
            #expect(delivered.map(\.eventID) == events.map(\.id) + [later.id])
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: state + "/spool/r.0.recorder").isEmpty)
    }

    @Test func shutdownSpoolsWhatDidNotDrainInTime() async throws {
        let probe = TestProbe()
        let state = NSTemporaryDirectory() + "tagrouter-drain-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: state) }
        let router = try makeRouter("""
            shutdown_timeout: 100ms
            routes:
              - name: r
                actions:
                  - recorder: { probe: \(probe.id), block: true }
                  - recorder: { probe: \(probe.id), label: quick }
            """, stateDirectory: state)
        try await router.whileRunning { buffer in
            for _ in 0..<3 { buffer.offer(tagEvent()) }
            _ = try await probe.next(1, where: { $0.step == .began && $0.label == "r" })
        }
        #expect(router.counters["r.0.recorder"]?.spooled == 3)
        #expect(router.counters["r.1.recorder"]?.delivered == 3)
        #expect(Spool(directory: state + "/spool/r.0.recorder").recoverEntries().count == 3)
    }

    @Test func explainShowsEveryRouteAndCondition() throws {
        let router = try makeRouter("""
            routes:
              - name: music
                match: { uri: "spotify:*", reader: [desk, kitchen] }
                actions: [{ log: "play {{uri}}" }]
              - name: any
                actions: [log]
              - name: never
                actions: [log]
            """)
        let explained = router.explain(tagEvent(uri: "spotify:track:1", reader: "door"))
        #expect(explained.map(\.route) == ["music", "any", "never"])
        #expect(explained.map(\.matched) == [false, true, false])
        #expect(explained.map(\.tried) == [true, true, false])
        #expect(explained[0].conditions.map(\.description) == [
            "✓ event: tag.arrived", "✓ uri: \"spotify:track:1\" matches spotify:*", "✗ reader: \"door\" does not match desk or kitchen",
        ])
        #expect(explained[1].actions.first?.hasPrefix("log: print {\"route\":\"any\"") == true)
    }
}

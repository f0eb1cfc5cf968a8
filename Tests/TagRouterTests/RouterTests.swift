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
        await router.start()
        #expect(router.dispatch(tagEvent(uri: "spotify:track:1")) == ["music", "door"])
        #expect(router.dispatch(tagEvent(uid: "0411223344")) == ["fallback"])
        #expect(router.dispatch(tagEvent(uid: "0411223344", uri: "spotify:x")) == ["music", "fallback"])
        #expect(router.dispatch(TagEvent(kind: .tagRemoved, reader: "door")) == [])
        let records = try await probe.next(5)
        #expect(records.map(\.label).sorted() == ["door", "fallback", "fallback", "music", "music"])
        await router.shutdown(timeout: .seconds(10))
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
        await router.start()
        let events = (0..<5).map { _ in tagEvent() }
        for event in events { router.dispatch(event) }
        let fast = try await probe.next(5, where: { $0.label == "fast" && $0.step == .delivered })
        #expect(fast.map(\.eventID) == events.map(\.id))
        #expect(router.counters["both.0.recorder"]?.delivered == 0)
        probe.open()
        let slow = try await probe.next(5, where: { $0.label == "slow" && $0.step == .delivered })
        #expect(slow.map(\.eventID) == events.map(\.id))
        await router.shutdown(timeout: .seconds(10))
        #expect(router.counters["both.0.recorder"] == { var c = ActionCounters(); c.delivered = 5; return c }())
    }

    @Test func fullQueueDropsTheOldestAndCountsIt() async throws {
        let probe = TestProbe()
        let router = try makeRouter("""
            routes:
              - name: r
                actions: [{ recorder: { probe: \(probe.id), block: true, queue: 2 } }]
            """)
        await router.start()
        let events = (0..<6).map { _ in tagEvent() }
        router.dispatch(events[0])
        _ = try await probe.next(1, where: { $0.step == .began })
        for event in events.dropFirst() { router.dispatch(event) }
        #expect(router.counters["r.0.recorder"]?.dropped == 3)
        probe.open()
        let delivered = try await probe.next(3)
        #expect(delivered.map(\.eventID) == [events[0].id, events[4].id, events[5].id])
        await router.shutdown(timeout: .seconds(10))
    }

    @Test func retriesWithBackoffThenDelivers() async throws {
        let probe = TestProbe()
        probe.failNext(2)
        let router = try makeRouter("""
            routes:
              - name: r
                actions: [{ recorder: { probe: \(probe.id), retry: { attempts: 3, backoff: 1ms } } }]
            """)
        await router.start()
        let event = tagEvent()
        router.dispatch(event)
        let delivered = try await probe.next(1)
        #expect(delivered == [ProbeRecord(label: "r", eventID: event.id, attempt: 3, step: .delivered)])
        await router.shutdown(timeout: .seconds(10))
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
        await router.start()
        router.dispatch(tagEvent())
        let second = tagEvent()
        router.dispatch(second)
        #expect(try await probe.next(1).map(\.eventID) == [second.id])
        await router.shutdown(timeout: .seconds(10))
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
        await first.start()
        let events = (0..<4).map { _ in tagEvent() }
        for event in events { first.dispatch(event) }
        _ = try await probe.next(2, where: { $0.step == .failed })
        await first.shutdown(timeout: .seconds(10))
        #expect(first.counters["r.0.recorder"]?.spooled == 4)
        let files = try FileManager.default.contentsOfDirectory(atPath: state + "/spool/r.0.recorder").sorted()
        #expect(files.count == 4)

        probe.failNext(0)
        let second = try makeRouter(yaml, stateDirectory: state)
        await second.start()
        let later = tagEvent()
        second.dispatch(later)
        let delivered = try await probe.next(5)
        #expect(delivered.map(\.eventID) == events.map(\.id) + [later.id])
        await second.shutdown(timeout: .seconds(10))
        #expect(try FileManager.default.contentsOfDirectory(atPath: state + "/spool/r.0.recorder").isEmpty)
    }

    @Test func shutdownSpoolsWhatDidNotDrainInTime() async throws {
        let probe = TestProbe()
        let state = NSTemporaryDirectory() + "tagrouter-drain-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: state) }
        let router = try makeRouter("""
            routes:
              - name: r
                actions:
                  - recorder: { probe: \(probe.id), block: true }
                  - recorder: { probe: \(probe.id), label: quick }
            """, stateDirectory: state)
        await router.start()
        for _ in 0..<3 { router.dispatch(tagEvent()) }
        _ = try await probe.next(1, where: { $0.step == .began && $0.label == "r" })
        await router.shutdown(timeout: .milliseconds(100))
        #expect(router.counters["r.0.recorder"]?.spooled == 3)
        #expect(router.counters["r.1.recorder"]?.delivered == 3)
        #expect(try FileManager.default.contentsOfDirectory(atPath: state + "/spool/r.0.recorder").count == 3)
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

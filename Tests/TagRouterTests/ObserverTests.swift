import Foundation
import OrderedJSON
import TagCore
import Testing

@testable import TagRouter

@Suite struct ObserverTests {
    static let yaml = """
        readers:
          - { name: door, device: "pn532_uart:/dev/null" }
        routes:
          - name: key
            match: { uid: "04a224b2c35e80" }
            actions: [{ recorder: { probe: PROBE, label: key } }]
          - name: music
            match: { uri: "spotify:*" }
            actions: [{ recorder: { probe: PROBE, label: music, permanent: true } }]
        """

    /// Every record a watcher receives, as a stream the test awaits.
    func watching(_ observer: DaemonObserver) -> (AsyncStream<ObservedRecord>, Int) {
        let (stream, continuation) = AsyncStream.makeStream(of: ObservedRecord.self)
        return (stream, observer.watch { continuation.yield($0) })
    }

    @Test func countsWhatWasRoutedAndDeliveredPerReaderRouteAndAction() async throws {
        let probe = TestProbe()
        let observer = DaemonObserver()
        let router = try makeRouter(Self.yaml.replacingOccurrences(of: "PROBE", with: probe.id), observer: observer)
        #expect(observer.status.readers.map(\.state) == [.starting])
        probe.failNext(1)
        try await router.whileRunning { buffer in
            buffer.offer(TagEvent(kind: .readerConnected, reader: "door", message: "PN532 (pn532_uart:/dev/null)"))
            buffer.offer(tagEvent(uid: "0499887766", uri: "spotify:track:1"))
            _ = try await probe.next(1, where: { $0.step == .failed })
            buffer.offer(tagEvent(uid: "0411223344"))
            buffer.offer(tagEvent())
            _ = try await probe.next(1)
        }
        let status = observer.status
        let door = try #require(status.readers.first)
        #expect(door.state == .connected)
        #expect(door.tagsSeen == 3)
        #expect(door.lastTag?.uid == "04a224b2c35e80")
        #expect(status.routes.map(\.matches) == [1, 1])
        #expect(status.eventCounts["door"] == ["reader.connected": 1, "tag.arrived": 3])
        let key = try #require(status.actions.first { $0.id == "key.0.recorder" })
        #expect(key.counters.delivered == 1)
        #expect(key.lastSuccess != nil)
        #expect(key.latency.count == 1)
        #expect(!key.failing)
        let music = try #require(status.actions.first { $0.id == "music.0.recorder" })
        #expect(music.counters.failed == 1)
        #expect(music.lastError?.message == "injected")
        #expect(music.failing)
        #expect(status.problems == ["action music.0.recorder is failing: injected"])
    }

    @Test func aWatcherSeesEachEventBeforeItsOutcomesAndWhyNothingMatched() async throws {
        let probe = TestProbe()
        let observer = DaemonObserver()
        let router = try makeRouter(Self.yaml.replacingOccurrences(of: "PROBE", with: probe.id), observer: observer)
        let (records, id) = watching(observer)
        let (hit, miss) = (tagEvent(), tagEvent(uid: "0411223344", uri: "https://example.com"))
        var next = records.makeAsyncIterator()
        var seen: [ObservedRecord] = []
        try await router.whileRunning { buffer in
            buffer.offer(hit)
            // The miss goes in once the watcher has the hit's outcome: the probe hears of the
            // delivery before the router records it, so waiting on the probe let the miss overtake.
            while seen.count < 2, let record = await next.next() { seen.append(record) }
            buffer.offer(miss)
            if let record = await next.next() { seen.append(record) }
        }
        observer.unwatch(id)
        #expect(seen.map { $0.json["type"] } == ["event", "action", "event"])
        #expect(seen[0].json.value(atPath: "event.id") == .string(hit.id))
        #expect(seen[0].json["routes"] == ["key"])
        #expect(seen[1].json["event_id"] == .string(hit.id))
        #expect(seen[1].json["result"] == "delivered")
        #expect(seen[1].json["action"] == "key.0.recorder")
        #expect(seen[2].json["routes"] == [])
        let verdicts = try #require(seen[2].json["verdicts"])
        #expect(verdicts.value(atPath: "0.route") == "key")
        #expect(verdicts.value(atPath: "0.failed.0")?.stringValue?.hasPrefix("uid:") == true)
        #expect(verdicts.value(atPath: "1.failed.0")?.stringValue?.hasPrefix("uri:") == true)
    }

    @Test func theSummaryLineSaysReadersRoutesTheLastTapAndTheFirstProblem() async throws {
        let probe = TestProbe()
        let observer = DaemonObserver()
        let yaml = Self.yaml.replacingOccurrences(of: "PROBE", with: probe.id)
            .replacingOccurrences(of: "readers:\n", with: "readers:\n  - { name: hall, device: \"pn532_uart:/dev/zero\" }\n")
        let router = try makeRouter(yaml, observer: observer)
        #expect(observer.status.summary() == "0 of 2 readers connected · 2 routes · reader hall is starting (+1 more: tagrouter status)")
        var tap = tagEvent()
        tap.time = Date(timeIntervalSince1970: 1_764_424_931)  // 2025-11-29 14:02:11 UTC
        try await router.whileRunning { buffer in
            buffer.offer(TagEvent(kind: .readerConnected, reader: "door"))
            buffer.offer(TagEvent(kind: .readerConnected, reader: "hall"))
            buffer.offer(tap)
            _ = try await probe.next(1)
        }
        let utc = try #require(TimeZone(identifier: "UTC"))
        #expect(observer.status.summary(timeZone: utc) == "2 readers connected · 2 routes · last tap 14:02:11 door")
    }
}

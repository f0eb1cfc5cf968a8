import Foundation
import OrderedJSON
import TagCore
import Testing

@testable import TagRouter

/// How fast each reader is: place → `tag.arrived` as its reader measured it
/// (`TagEvent.arrivalLatency`), and its arrivals → each action's outcome.
extension ObserverTests {
    @Test func eachReaderHasItsArrivalAndOutcomeLatencies() async throws {
        let probe = TestProbe()
        let observer = DaemonObserver()
        let router = try makeRouter(Self.yaml.replacingOccurrences(of: "PROBE", with: probe.id), observer: observer)
        probe.failNext(1)
        try await router.whileRunning { buffer in
            var music = tagEvent(uid: "0499887766", uri: "spotify:track:1")
            music.arrivalLatency = .milliseconds(40)
            buffer.offer(music)
            _ = try await probe.next(1, where: { $0.step == .failed })
            var key = tagEvent()
            key.arrivalLatency = .milliseconds(30)
            buffer.offer(key)
            _ = try await probe.next(1)
            // Another node's arrival, under a reader of the same name: not this reader's.
            var remote = tagEvent()
            remote.node = "hall"
            buffer.offer(remote)
            _ = try await probe.next(1)
        }
        let door = try #require(observer.status.readers.first)
        #expect(door.arrival.count == 2)
        #expect(abs(door.arrival.sum - 0.07) < 1e-9)
        #expect(door.outcomes.keys.sorted() == ["key.0.recorder", "music.0.recorder"])
        #expect(door.outcomes["key.0.recorder"]?.count == 1, "the node's delivery is not the reader's")
        #expect(door.outcomes["music.0.recorder"]?.count == 1, "a failure is an outcome too")
        let json = door.json
        #expect(Self.milliseconds(json["arrival_ms"]?["p50"]).map { abs($0 - 30) < 1e-6 } == true)
        #expect(Self.milliseconds(json["arrival_ms"]?["p99"]).map { abs($0 - 40) < 1e-6 } == true)
        #expect(json["outcome_ms"]?["key.0.recorder"]?["p50"] != nil)
        #expect(json["outcome_ms"]?["music.0.recorder"]?["p99"] != nil)
    }

    static func milliseconds(_ value: JSONValue?) -> Double? {
        if case .double(let ms)? = value { return ms }
        return nil
    }

    @Test func aReaderWithoutArrivalsHasNoLatencies() throws {
        let observer = DaemonObserver()
        observer.configured(try load("readers: [{name: door}]\nroutes: [{actions: [log]}]"))
        let json = try #require(observer.status.readers.first).json
        #expect(json["arrival_ms"] == nil)
        #expect(json["outcome_ms"] == nil)
    }
}

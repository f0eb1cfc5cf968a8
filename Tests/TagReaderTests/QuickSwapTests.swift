import PN532Sim
import TagCore
import Testing

@testable import TagReader

/// A tag placed soon after the previous one was lifted (a quick swap), while the
/// lifted one still waits out its exit delay: the reader watches the field as an
/// empty one and reads the new tag from the look that found it, and the events of
/// both tags stay right.
extension ReaderLoopTests {
    /// Before, every look while the lifted tag waited out its exit delay was an
    /// inventory (the field reset, every modulation listed), every `pollInterval`,
    /// and the new tag was found there; the field is never quiet of resets then.
    @Test(arguments: ReaderConfig.Polling.allCases)
    func whileALiftedTagWaitsOutItsExitDelayTheFieldIsWatchedWithoutResets(polling: ReaderConfig.Polling) async throws {
        // An exit delay far longer than the test: the lifted tag waits it out throughout.
        let bench = try Bench(exitDelay: .seconds(3600), polling: polling)
        defer { bench.close() }
        try await bench.log.wait(for: 1)
        bench.sim.place(try Self.ntag215(Self.uidA, [.uri("https://example.com/a")]))
        try await bench.log.wait(for: 2)
        bench.sim.removeAll()
        try await Self.waitForLooksWithoutFieldReset(20, on: bench.sim)
        bench.sim.place(try Self.ntag215(Self.uidB, [.uri("https://example.com/b")]))
        let arrived = try await bench.log.wait(for: 3)[2]
        #expect(arrived.uri == "https://example.com/b")
        #expect(arrived.tag?.type == "ntag215")
        #expect(try await bench.log.kinds(3) == ["reader.connected", "tag.arrived 04a224b2c35e80", "tag.arrived 04112233445566"])
    }

    /// The swap's events: the new tag arrives while the old one waits out its exit
    /// delay, the old one's removal follows once the delay has passed, the new one's
    /// when it is lifted; each removal carries its own tag.
    @Test(arguments: ReaderConfig.Polling.allCases)
    func aQuickSwapReportsBothTagsArrivalsAndRemovals(polling: ReaderConfig.Polling) async throws {
        let bench = try Bench(exitDelay: .seconds(1), polling: polling)
        defer { bench.close() }
        try await bench.log.wait(for: 1)
        bench.sim.place(try Self.ntag215(Self.uidA, [.uri("https://example.com/a")]))
        try await bench.log.wait(for: 2)
        bench.sim.replaceAll(with: [try Self.ntag215(Self.uidB, [.uri("https://example.com/b")])])
        let afterSwap = try await bench.log.kinds(4)
        #expect(Set(afterSwap.suffix(2)) == ["tag.arrived 04112233445566", "tag.removed 04a224b2c35e80"])
        bench.sim.removeAll()
        let events = try await bench.log.wait(for: 5)
        #expect(EventLog.summary(events).last == "tag.removed 04112233445566")
        let removalOfA = try #require(events.first { $0.kind == .tagRemoved && $0.tag?.uid == TagUID(bytes: Self.uidA) })
        #expect(removalOfA.uri == nil)
        #expect(events.last?.tag?.type == "ntag215")
    }

    /// Waits until the reader has taken `count` looks at the field (InListPassiveTarget)
    /// in a row with no field reset (RFConfiguration) among them.
    static func waitForLooksWithoutFieldReset(_ count: Int, on sim: PN532Simulator) async throws {
        func now() -> (looks: Int, resets: Int) {
            let commands = sim.counters.commands
            return (commands["InListPassiveTarget", default: 0], commands["RFConfiguration", default: 0])
        }
        var since = now()
        let deadline = ContinuousClock.now + .seconds(20)
        while true {
            let current = now()
            if current.resets != since.resets { since = current }
            if current.looks - since.looks >= count { return }
            guard ContinuousClock.now < deadline else {
                throw EventLog.Timeout(description: "no \(count) looks at the field without a field reset within 20 s")
            }
            try await Task.sleep(for: .milliseconds(2))
        }
    }
}

import Foundation
import NDEF
import PN532Sim
import TagCore
import TagKit
import Testing

@testable import TagReader

/// The reader loop through libnfc against the PN532 simulator: exact event
/// sequences for the things that happen at a real reader.
@Suite(.serialized) struct ReaderLoopTests {
    static let uidA: [UInt8] = [0x04, 0xA2, 0x24, 0xB2, 0xC3, 0x5E, 0x80]
    static let uidB: [UInt8] = [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]

    static func ntag215(_ uid: [UInt8], _ records: [NDEFRecord]) throws -> Type2Tag {
        try Type2Tag(.ntag215, uid: uid, message: NDEFMessage(records: records).encoded())
    }

    static func config(_ device: String, exitDelay: Duration = .zero, ignoreOnConnect: Bool = false, hold: Duration? = nil) -> ReaderConfig {
        ReaderConfig.testing(name: "desk", device: device, exitDelay: exitDelay, ignoreOnConnect: ignoreOnConnect, hold: hold)
    }

    @Test func placeThenRemoveGivesOneArrivalAndOneRemoval() async throws {
        let sim = try PN532Simulator(pacing: .none)
        defer { sim.close() }
        let supervisor = ReaderSupervisor(readers: [Self.config(sim.connstring)], drivers: .underTest)
        defer { supervisor.stop() }
        let log = EventLog(supervisor)
        #expect(try await log.kinds(1) == ["reader.connected"])
        sim.place(try Self.ntag215(Self.uidA, [.uri("https://example.com/a"), .text("Cheek to Cheek")]))
        let arrived = try await log.wait(for: 2)[1]
        #expect(arrived.kind == .tagArrived)
        #expect(arrived.tag?.uid == TagUID(bytes: Self.uidA))
        #expect(arrived.tag?.type == "ntag215")
        #expect(arrived.uri == "https://example.com/a")
        #expect(arrived.text == "Cheek to Cheek")
        sim.removeAll()
        #expect(try await log.kinds(3) == ["reader.connected", "tag.arrived 04a224b2c35e80", "tag.removed 04a224b2c35e80"])
        #expect(log.events[2].dwellMs != nil)
    }
}

extension ReaderLoopTests {
    /// A simulator and a supervisor watching it, torn down together.
    struct Bench {
        let sim: PN532Simulator
        let supervisor: ReaderSupervisor
        let log: EventLog

        init(
            exitDelay: Duration = .zero, ignoreOnConnect: Bool = false, hold: Duration? = nil, polling: ReaderConfig.Polling = .autoPoll,
            placed: [any SimulatedTag] = []
        ) throws {
            // A reader that polls without pausing gets the chip's timing, not a spin.
            sim = try PN532Simulator(pacing: polling == .fast ? .radio : .none)
            sim.place(placed)
            var config = ReaderLoopTests.config(sim.connstring, exitDelay: exitDelay, ignoreOnConnect: ignoreOnConnect, hold: hold)
            config.polling = polling
            supervisor = ReaderSupervisor(readers: [config], drivers: .underTest)
            log = EventLog(supervisor)
        }

        func close() {
            supervisor.stop()
            sim.close()
        }
    }

    @Test(arguments: ReaderConfig.Polling.allCases)
    func replacingATagRemovesTheOldOneThenReportsTheNewOne(polling: ReaderConfig.Polling) async throws {
        let bench = try Bench(polling: polling)
        defer { bench.close() }
        try await bench.log.wait(for: 1)
        bench.sim.place(try Self.ntag215(Self.uidA, [.uri("https://example.com/a")]))
        try await bench.log.wait(for: 2)
        bench.sim.replaceAll(with: [try Self.ntag215(Self.uidB, [.uri("https://example.com/b")])])
        try await bench.log.wait(for: 4)
        bench.sim.removeAll()
        #expect(try await bench.log.kinds(5) == [
            "reader.connected", "tag.arrived 04a224b2c35e80", "tag.removed 04a224b2c35e80",
            "tag.arrived 04112233445566", "tag.removed 04112233445566",
        ])
    }

    @Test(arguments: ReaderConfig.Polling.allCases)
    func twoTagsInTheFieldEachGetTheirOwnEvents(polling: ReaderConfig.Polling) async throws {
        let bench = try Bench(polling: polling)
        defer { bench.close() }
        try await bench.log.wait(for: 1)
        bench.sim.place([try Self.ntag215(Self.uidA, [.uri("https://example.com/a")]), try Self.ntag215(Self.uidB, [.uri("https://example.com/b")])])
        // In the order the reader lists them: the order they were placed.
        #expect(try await bench.log.kinds(3) == ["reader.connected", "tag.arrived 04a224b2c35e80", "tag.arrived 04112233445566"])
        bench.sim.remove(uid: Self.uidA)
        try await bench.log.wait(for: 4)
        bench.sim.remove(uid: Self.uidB)
        #expect(Array(try await bench.log.kinds(5).dropFirst(3)) == ["tag.removed 04a224b2c35e80", "tag.removed 04112233445566"])
    }

    @Test(arguments: ReaderConfig.Polling.allCases)
    func theSameTagTappedAgainArrivesAgain(polling: ReaderConfig.Polling) async throws {
        let bench = try Bench(polling: polling)
        defer { bench.close() }
        try await bench.log.wait(for: 1)
        let tag = try Self.ntag215(Self.uidA, [.uri("https://example.com/a")])
        bench.sim.place(tag)
        try await bench.log.wait(for: 2)
        bench.sim.removeAll()
        try await bench.log.wait(for: 3)
        bench.sim.place(tag)
        let again = try await bench.log.wait(for: 4)[3]
        #expect(again.uri == "https://example.com/a")
        bench.sim.removeAll()
        #expect(try await bench.log.kinds(5) == [
            "reader.connected", "tag.arrived 04a224b2c35e80", "tag.removed 04a224b2c35e80",
            "tag.arrived 04a224b2c35e80", "tag.removed 04a224b2c35e80",
        ])
    }

    @Test func aSecondTagJoiningAHeldOneArrivesAlone() async throws {
        let bench = try Bench()
        defer { bench.close() }
        try await bench.log.wait(for: 1)
        bench.sim.place(try Self.ntag215(Self.uidA, [.uri("https://example.com/a")]))
        try await bench.log.wait(for: 2)
        bench.sim.place(try Self.ntag215(Self.uidB, [.uri("https://example.com/b")]))
        try await bench.log.wait(for: 3)
        bench.sim.removeAll()
        // Both leave in one poll: removals come in UID order.
        #expect(try await bench.log.kinds(5) == [
            "reader.connected", "tag.arrived 04a224b2c35e80", "tag.arrived 04112233445566",
            "tag.removed 04112233445566", "tag.removed 04a224b2c35e80",
        ])
    }

    @Test func ignoreOnConnectSilencesATagAlreadyLyingThere() async throws {
        let bench = try Bench(ignoreOnConnect: true, placed: [try Self.ntag215(Self.uidA, [.uri("https://example.com/a")])])
        defer { bench.close() }
        try await bench.log.wait(for: 1)
        // The first poll (which finds A, silently) is over once the reader moves on
        // to checking the held tag; a tag placed before that would be "already there" too.
        let deadline = ContinuousClock.now + .seconds(20)
        while bench.sim.counters.commands["InListPassiveTarget", default: 0] == 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        bench.sim.place(try Self.ntag215(Self.uidB, [.uri("https://example.com/b")]))
        try await bench.log.wait(for: 2)
        bench.sim.remove(uid: Self.uidA)
        bench.sim.remove(uid: Self.uidB)
        #expect(try await bench.log.kinds(3) == ["reader.connected", "tag.arrived 04112233445566", "tag.removed 04112233445566"])
    }

    /// Fast polling looks at FeliCa and Jewel only now and then; its first look after
    /// connecting takes every modulation, or a FeliCa card lying there would "arrive".
    @Test(arguments: ReaderConfig.Polling.allCases)
    func ignoreOnConnectSilencesAFeliCaCardAlreadyLyingThere(polling: ReaderConfig.Polling) async throws {
        let felica = try Type3Tag(idm: [0x01, 0x2E, 0x3A, 0x4B, 0x5C, 0x6D, 0x7E, 0x8F], message: [])
        let bench = try Bench(ignoreOnConnect: true, polling: polling, placed: [felica])
        defer { bench.close() }
        try await bench.log.wait(for: 1)
        let deadline = ContinuousClock.now + .seconds(20)
        while bench.sim.counters.activations == 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        bench.sim.place(try Self.ntag215(Self.uidB, [.uri("https://example.com/b")]))
        try await bench.log.wait(for: 2)
        bench.sim.remove(uid: Self.uidB)
        #expect(try await bench.log.kinds(3) == ["reader.connected", "tag.arrived 04112233445566", "tag.removed 04112233445566"])
    }

    @Test func aTagAlreadyLyingThereArrivesWithoutIgnoreOnConnect() async throws {
        let bench = try Bench(placed: [try Self.ntag215(Self.uidA, [.uri("https://example.com/a")])])
        defer { bench.close() }
        #expect(try await bench.log.kinds(2) == ["reader.connected", "tag.arrived 04a224b2c35e80"])
    }
}

extension ReaderLoopTests {
    @Test func aTagRemovedMidReadArrivesWithAnErrorThenLeaves() async throws {
        let bench = try Bench()
        defer { bench.close() }
        try await bench.log.wait(for: 1)
        // GET_VERSION and the CC answer; then the tag is pulled away.
        let records: [NDEFRecord] = [.text(String(repeating: "long text ", count: 40))]
        bench.sim.place(try Self.ntag215(Self.uidA, records), leavingAfterExchanges: 2)
        let arrived = try await bench.log.wait(for: 2)[1]
        #expect(arrived.kind == .tagArrived)
        #expect(arrived.ndefError == "tag removed during read")
        #expect(arrived.json["ndef"] == .null)
        #expect(arrived.tag?.type == "ntag215")
        #expect(try await bench.log.kinds(3) == ["reader.connected", "tag.arrived 04a224b2c35e80", "tag.removed 04a224b2c35e80"])
    }
}

extension ReaderLoopTests {
    @Test func aHeldTagFiresHeldOnTimeAndALiftedOneTapped() async throws {
        // A poll interval far longer than the hold: only waking up for the hold fires it on time.
        let sim = try PN532Simulator(pacing: .none)
        defer { sim.close() }
        var config = Self.config(sim.connstring, hold: .milliseconds(300))
        config.pollInterval = .seconds(2)
        let supervisor = ReaderSupervisor(readers: [config], drivers: .underTest)
        defer { supervisor.stop() }
        let log = EventLog(supervisor)
        try await log.wait(for: 1)
        let placed = Date()
        sim.place(try Self.ntag215(Self.uidA, [.uri(TagEvent.homeAssistantTagPrefix + "front-door")]))
        try await log.wait(for: 3)
        let arrived = log.events[1], held = log.events[2]
        #expect(held.kind == .tagHeld)
        // The hold counts from when the scan first saw the tag: after `placed`, before the arrival's time (stamped
        // once the tag is read, which took over 50 ms under load and made a bound from the arrival fail).
        #expect(held.time.timeIntervalSince(placed) > 0.29, "held \(held.time.timeIntervalSince(placed)) s after the tag was placed")
        let lateness = held.time.timeIntervalSince(arrived.time) - 0.3
        #expect(lateness < 1, "held \(lateness) s after the hold fell due")
        sim.removeAll()
        try await log.wait(for: 4)
        sim.place(try Self.ntag215(Self.uidB, [.text("b")]))
        try await log.wait(for: 5)
        sim.removeAll()
        #expect(try await log.kinds(7) == [
            "reader.connected", "tag.arrived 04a224b2c35e80", "tag.held 04a224b2c35e80", "tag.removed 04a224b2c35e80",
            "tag.arrived 04112233445566", "tag.tapped 04112233445566", "tag.removed 04112233445566",
        ])
        // One presence, one identity: the HA tag id of the arrival is the id of its hold and removal.
        #expect(log.events[1...3].map(\.tagID) == ["front-door", "front-door", "front-door"])
    }
}

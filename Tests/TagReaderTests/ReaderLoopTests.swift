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

    static func config(_ device: String, ignoreOnConnect: Bool = false) -> ReaderConfig {
        ReaderConfig(name: "desk", device: device, cooldown: .zero, exitDelay: .zero, ignoreOnConnect: ignoreOnConnect, pollInterval: .milliseconds(20))
    }

    @Test func placeThenRemoveGivesOneArrivalAndOneRemoval() async throws {
        let sim = try PN532Simulator(pacing: .none)
        defer { sim.close() }
        let supervisor = ReaderSupervisor(readers: [Self.config(sim.connstring)])
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

        init(ignoreOnConnect: Bool = false, placed: [any SimulatedTag] = []) throws {
            sim = try PN532Simulator(pacing: .none)
            sim.place(placed)
            supervisor = ReaderSupervisor(readers: [ReaderLoopTests.config(sim.connstring, ignoreOnConnect: ignoreOnConnect)])
            log = EventLog(supervisor)
        }

        func close() {
            supervisor.stop()
            sim.close()
        }
    }

    @Test func replacingATagRemovesTheOldOneThenReportsTheNewOne() async throws {
        let bench = try Bench()
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

    @Test func twoTagsInTheFieldEachGetTheirOwnEvents() async throws {
        let bench = try Bench()
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
        bench.sim.place(try Self.ntag215(Self.uidB, [.uri("https://example.com/b")]))
        try await bench.log.wait(for: 2)
        bench.sim.remove(uid: Self.uidA)
        bench.sim.remove(uid: Self.uidB)
        #expect(try await bench.log.kinds(3) == ["reader.connected", "tag.arrived 04112233445566", "tag.removed 04112233445566"])
    }

    @Test func aTagAlreadyLyingThereArrivesWithoutIgnoreOnConnect() async throws {
        let bench = try Bench(placed: [try Self.ntag215(Self.uidA, [.uri("https://example.com/a")])])
        defer { bench.close() }
        #expect(try await bench.log.kinds(2) == ["reader.connected", "tag.arrived 04a224b2c35e80"])
    }
}

/// A tag that goes mute after `answers` exchanges, as if pulled away mid-read
/// while still close enough to answer anticollision.
struct FadingTag: SimulatedTag {
    var inner: Type2Tag
    var answers: Int

    var activation: TagActivation { inner.activation }
    var typeName: String { inner.typeName }
    var memory: [UInt8] { inner.memory }
    mutating func reset() { inner.reset() }

    mutating func exchange(_ command: [UInt8]) throws(TagTransportError) -> [UInt8] {
        guard answers > 0 else { throw .tagRemoved }
        answers -= 1
        return try inner.exchange(command)
    }
}

extension ReaderLoopTests {
    @Test func aTagRemovedMidReadArrivesWithAnErrorThenLeaves() async throws {
        let bench = try Bench()
        defer { bench.close() }
        try await bench.log.wait(for: 1)
        // GET_VERSION and the CC answer; the data area does not.
        let records: [NDEFRecord] = [.text(String(repeating: "long text ", count: 40))]
        bench.sim.place(FadingTag(inner: try Self.ntag215(Self.uidA, records), answers: 2))
        let arrived = try await bench.log.wait(for: 2)[1]
        #expect(arrived.kind == .tagArrived)
        #expect(arrived.ndefError == "tag removed during read")
        #expect(arrived.json["ndef"] == .null)
        #expect(arrived.tag?.type == "ntag215")
        bench.sim.removeAll()
        #expect(try await bench.log.kinds(3) == ["reader.connected", "tag.arrived 04a224b2c35e80", "tag.removed 04a224b2c35e80"])
    }
}

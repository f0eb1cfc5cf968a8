import Foundation
import NDEF
import PN532Sim
import TagCore
import TagKit
import Testing
import TestSupport

@testable import ReaderPCSC
@testable import TagReader

/// The reader behaviours users see, as one table over the backends: libnfc on
/// the PN532 simulator (default polling, and `polling: fast`), and PC/SC — a real
/// pcscd with vsmartcard's vpcd driver, the simulator playing the card on vpcd's socket.
@Suite(.serialized) struct ReaderBehaviourTests {
    enum Backend: String, CaseIterable, CustomTestStringConvertible {
        case libnfc, libnfcFast, pcsc
        var testDescription: String { rawValue }
    }

    static let uidA: [UInt8] = [0x04, 0xA2, 0x24, 0xB2, 0xC3, 0x5E, 0x80]
    static let uidB: [UInt8] = [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]

    /// A simulated field on one backend and the `device:` that reads it.
    struct Reader {
        let field: any SimulatedField
        let device: String
        let backend: Backend
        let close: @Sendable () -> Void
        /// True once the backend has seen the tags placed after `insertions` was `since`
        /// (pcscd notices a card at its next presence poll; libnfc when it polls, at once).
        let seenSince: @Sendable (_ since: Int) -> Bool
        /// Cards the backend has noticed so far.
        let insertions: @Sendable () -> Int
        /// Grows each time the reader looks at a tag in the field.
        let looks: @Sendable () -> Int
        /// True when a reader connecting now would find a card lying there: pcscd publishes a
        /// card only after it powered it up (`seenSince` is true from the power-up on); libnfc, always.
        let showsCard: @Sendable () -> Bool

        init(_ backend: Backend) async throws {
            self.backend = backend
            switch backend {
            case .libnfc, .libnfcFast:
                // Fast polling lists the field without pausing: the chip's timing, not a spin.
                let sim = try PN532Simulator(pacing: backend == .libnfcFast ? .radio : .none)
                field = sim
                device = sim.connstring
                close = { sim.close() }
                seenSince = { _ in true }
                insertions = { 0 }
                showsCard = { true }
                if backend == .libnfcFast {
                    // Every fast look lists the field, empty or not: a look at a tag is one that found it.
                    looks = { sim.counters.activations }
                } else {
                    // The first poll, which finds what lies there, is over once the reader checks the held tag.
                    looks = { sim.counters.commands["InListPassiveTarget", default: 0] }
                }
            case .pcsc:
                let daemon = try PCSCDaemon.shared.get()
                let slot = try await daemon.leaseSlot()
                let card = VPCDCard(port: slot.port)
                field = card
                device = slot.device
                close = {
                    card.close()
                    daemon.release(slot)
                }
                seenSince = { card.powerOns > $0 }
                insertions = { card.powerOns }
                looks = { card.apdus }
                let pattern = String(slot.device.dropFirst("pcsc:".count))
                showsCard = {
                    guard let context = try? PCSCContext(), let name = try? context.readers().first(where: { fnmatch(pattern, $0, 0) == 0 }) else { return false }
                    return (try? context.waitForChange(reader: name, known: nil, timeout: .zero))??.cardPresent ?? false
                }
            }
        }

        func watch(cooldown: Duration = .zero, ignoreOnConnect: Bool = false) -> (ReaderSupervisor, EventLog) {
            var config = ReaderConfig.testing(name: "desk", device: device, cooldown: cooldown, ignoreOnConnect: ignoreOnConnect)
            if backend == .libnfcFast { config.polling = .fast }
            let supervisor = ReaderSupervisor(readers: [config], drivers: .underTest)
            return (supervisor, EventLog(supervisor))
        }
    }

    static func ntag215(_ uid: [UInt8], _ records: [NDEFRecord]) throws -> Type2Tag {
        try Type2Tag(.ntag215, uid: uid, message: NDEFMessage(records: records).encoded())
    }

    @Test(arguments: Backend.allCases)
    func aTagArrivesOnceWithItsMessageAndIsRemovedOnce(backend: Backend) async throws {
        let reader = try await Reader(backend)
        defer { reader.close() }
        let (supervisor, log) = reader.watch()
        defer { supervisor.stop() }
        try await log.wait(for: 1)
        reader.field.place(try Self.ntag215(Self.uidA, [.uri("https://example.com/a"), .text("Cheek to Cheek")]))
        let arrived = try await log.wait(for: 2)[1]
        #expect(arrived.tag?.type == "ntag215")
        #expect(arrived.tag?.nfcForumType == 2)
        #expect(arrived.tag?.ndefCapacity == 492)
        #expect(arrived.uri == "https://example.com/a")
        #expect(arrived.text == "Cheek to Cheek")
        reader.field.removeAll()
        #expect(try await log.kinds(3) == ["reader.connected", "tag.arrived 04a224b2c35e80", "tag.removed 04a224b2c35e80"])
        reader.field.place(try Type4Tag(uid: Self.uidB, message: NDEFMessage(records: [.text("four")]).encoded()))
        let type4 = try await log.wait(for: 4)[3]
        #expect(type4.tag?.type == "type4")
        #expect(type4.text == "four")
        reader.field.removeAll()
        #expect(try await log.kinds(5).suffix(2) == ["tag.arrived 04112233445566", "tag.removed 04112233445566"])
        #expect(log.events.count == 5)
    }

    @Test(arguments: Backend.allCases)
    func theSameTagBackWithinTheCooldownIsSilent(backend: Backend) async throws {
        let reader = try await Reader(backend)
        defer { reader.close() }
        let (supervisor, log) = reader.watch(cooldown: .seconds(30))
        defer { supervisor.stop() }
        try await log.wait(for: 1)
        let tag = try Self.ntag215(Self.uidA, [.uri("https://example.com/a")])
        reader.field.place(tag)
        try await log.wait(for: 2)
        reader.field.removeAll()
        try await log.wait(for: 3)
        let looks = reader.looks()
        reader.field.place(tag)
        try await Self.waitUntil { reader.looks() > looks }
        reader.field.replaceAll(with: [try Self.ntag215(Self.uidB, [.uri("https://example.com/b")])])
        #expect(try await log.kinds(4) == [
            "reader.connected", "tag.arrived 04a224b2c35e80", "tag.removed 04a224b2c35e80", "tag.arrived 04112233445566",
        ])
    }

    @Test(arguments: Backend.allCases)
    func ignoreOnConnectSilencesOnlyTheTagAlreadyThere(backend: Backend) async throws {
        let reader = try await Reader(backend)
        defer { reader.close() }
        reader.field.place(try Self.ntag215(Self.uidA, [.uri("https://example.com/a")]))
        // What "lying there" means to the reader: pcscd shows it (a power-up is not yet that).
        try await Self.waitUntil { reader.showsCard() }
        let (supervisor, log) = reader.watch(ignoreOnConnect: true)
        defer { supervisor.stop() }
        try await log.wait(for: 1)
        try await Self.waitUntil { reader.looks() > 0 }
        // Taken off and another put on: only the new one fires.
        reader.field.replaceAll(with: [try Self.ntag215(Self.uidB, [.uri("https://example.com/b")])])
        let kinds = try await log.kinds(2)
        #expect(kinds == ["reader.connected", "tag.arrived 04112233445566"])
    }

    /// pcscd shows the card lying there at start, but its UID cannot be read at first:
    /// the reader asks again, and the card still counts as lying there. It used to get
    /// an empty first look, which used up `ignore_on_connect`, and then "arrive".
    @Test func ignoreOnConnectSilencesACardThatAnswersOnlyLater() async throws {
        let reader = try await Reader(.pcsc)
        defer { reader.close() }
        let card = try #require(reader.field as? VPCDCard)
        card.refuseUIDReads(1)
        reader.field.place(try Self.ntag215(Self.uidA, [.uri("https://example.com/a")]))
        // What "lying there" means to the reader: pcscd shows it (a power-up is not yet that).
        try await Self.waitUntil { reader.showsCard() }
        let (supervisor, log) = reader.watch(ignoreOnConnect: true)
        defer { supervisor.stop() }
        try await log.wait(for: 1)
        // The refused GET DATA, then the one that read the UID.
        try await Self.waitUntil { reader.looks() >= 2 }
        reader.field.replaceAll(with: [try Self.ntag215(Self.uidB, [.uri("https://example.com/b")])])
        let kinds = try await log.kinds(2)
        #expect(kinds == ["reader.connected", "tag.arrived 04112233445566"])
    }

    /// Returns once `condition` holds; fails after 10 s.
    static func waitUntil(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            try #require(ContinuousClock.now < deadline, "timed out")
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    @Test(arguments: Backend.allCases)
    func aMalformedMessageArrivesWithTheDefectNamed(backend: Backend) async throws {
        let reader = try await Reader(backend)
        defer { reader.close() }
        let (supervisor, log) = reader.watch()
        defer { supervisor.stop() }
        try await log.wait(for: 1)
        // A URI record announcing a 32-byte payload and carrying one byte.
        reader.field.place(try Type2Tag(.ntag215, uid: Self.uidA, message: [0xD1, 0x01, 0x20, 0x55, 0x04]))
        let arrived = try await log.wait(for: 2)[1]
        #expect(arrived.kind == .tagArrived)
        #expect(arrived.ndefError?.hasPrefix("NDEF message: ") == true, "\(arrived.ndefError ?? "no error")")
    }

    @Test(arguments: Backend.allCases)
    func aTagPulledAwayMidReadArrivesWithAnErrorThenLeaves(backend: Backend) async throws {
        let reader = try await Reader(backend)
        defer { reader.close() }
        let (supervisor, log) = reader.watch()
        defer { supervisor.stop() }
        try await log.wait(for: 1)
        // libnfc: GET_VERSION and the CC answer; PC/SC: GET DATA and the CC. In one step: a reader that finds
        // the tag before a separate removal is scheduled would read it whole.
        reader.field.place(try Self.ntag215(Self.uidA, [.text(String(repeating: "long text ", count: 40))]), leavingAfterExchanges: 2)
        let arrived = try await log.wait(for: 2)[1]
        #expect(arrived.ndefError == "tag removed during read")
        #expect(arrived.tag?.type == "ntag215")
        #expect(try await log.kinds(3) == ["reader.connected", "tag.arrived 04a224b2c35e80", "tag.removed 04a224b2c35e80"])
    }

    @Test(arguments: Backend.allCases)
    func writesAreVerifiedAndRefusedBeforeWritingWhenTheyCannotSucceed(backend: Backend) async throws {
        let reader = try await Reader(backend)
        defer { reader.close() }
        reader.field.place(try Type2Tag(.ntag213, uid: Self.uidA, message: NDEFMessage(records: [.uri("https://example.com/old")]).encoded()))
        let message = NDEFMessage(records: [.uri("https://example.com/new"), .text("written")]).encoded()
        try await TagAccess.withTag(device: reader.device, drivers: .underTest, timeout: .seconds(10)) { tag, driver in
            #expect(tag.type == "ntag213")
            try driver.write(message: message)
        }
        #expect(try Type2Memory.parse(image: reader.field.tag(uid: Self.uidA)?.memory ?? []).content.ndefMessage == message)
        let tooLarge = NDEFMessage(records: [.text(String(repeating: "x", count: 200))]).encoded()
        await #expect(throws: TagDriverError.doesNotFit(size: tooLarge.count, capacity: 142, tagType: "ntag213")) {
            try await TagAccess.withTag(device: reader.device, drivers: .underTest, timeout: .seconds(10)) { _, driver in try driver.write(message: tooLarge) }
        }
        let seen = reader.insertions()
        reader.field.replaceAll(with: [try Type2Tag(.ntag213, uid: Self.uidB, message: message, readOnly: true)])
        try await Self.waitUntil { reader.seenSince(seen) }
        await #expect(throws: TagDriverError.readOnly(tagType: "ntag213")) {
            try await TagAccess.withTag(device: reader.device, drivers: .underTest, timeout: .seconds(10)) { _, driver in try driver.write(message: message) }
        }
    }
}

/// Tags beyond Type 2 and Type 4 on both backends: libnfc passes the tag's own
/// commands through the PN532, PC/SC goes through the reader's part 3 commands
/// (MIFARE Classic: LOAD KEYS, GENERAL AUTHENTICATE, READ/UPDATE BINARY;
/// FeliCa: the card's frames through the reader's pass-through).
extension ReaderBehaviourTests {
    static let classicUID: [UInt8] = [0x74, 0x10, 0x37, 0x94]
    static let felicaIDm: [UInt8] = [0x01, 0x2E, 0x3A, 0x4B, 0x5C, 0x6D, 0x7E, 0x8F]

    /// A kind of tag, made holding a given message.
    struct Kind: Sendable, CustomTestStringConvertible {
        let type: String
        let uid: [UInt8]
        let capacity: Int
        let make: @Sendable (_ message: [UInt8]) throws -> any SimulatedTag
        var testDescription: String { type }
    }

    static let kinds: [Kind] = [
        Kind(type: "mifare-classic-1k", uid: classicUID, capacity: 716) { try MifareClassicTag(uid: classicUID, message: $0) },
        Kind(type: "type3", uid: felicaIDm, capacity: 208) { try Type3Tag(idm: felicaIDm, message: $0) },
    ]

    @Test(arguments: Backend.allCases, kinds)
    func aTagIsReadThenWrittenWithVerify(backend: Backend, kind: Kind) async throws {
        let reader = try await Reader(backend)
        defer { reader.close() }
        reader.field.place(try kind.make(NDEFMessage(records: [.uri("https://example.com/before")]).encoded()))
        let (supervisor, log) = reader.watch()
        let arrived = try await log.wait(for: 2)[1]
        supervisor.stop()
        try await log.waitUntilFinished()
        #expect(arrived.tag?.type == kind.type)
        #expect(arrived.tag?.uid.bytes == kind.uid)
        #expect(arrived.tag?.ndefCapacity == kind.capacity)
        #expect(arrived.ndefError == nil)
        #expect(arrived.uri == "https://example.com/before")
        // Long enough to span several blocks (Classic: sectors, each opened with its key).
        let message = NDEFMessage(records: [.uri("https://example.com/after"), .text(String(repeating: "across sectors ", count: 8))]).encoded()
        try await TagAccess.withTag(device: reader.device, drivers: .underTest, timeout: .seconds(10)) { tag, driver in
            #expect(tag.type == kind.type)
            try driver.write(message: message)
        }
        let written = try #require(reader.field.tag(uid: kind.uid))
        #expect(try Self.message(on: written, type: kind.type) == message)
    }

    @Test(arguments: Backend.allCases)
    func aClassicSectorUnderAnotherKeyIsNamedAndRefused(backend: Backend) async throws {
        let reader = try await Reader(backend)
        defer { reader.close() }
        var image = try MifareClassicTag(uid: Self.classicUID, message: NDEFMessage(records: [.text("secret")]).encoded()).memory
        // Sector 1, the first NDEF sector, gets a key A of its own instead of the NFC Forum public key.
        image.replaceSubrange(112..<118, with: [0x01, 0x02, 0x03, 0x04, 0x05, 0x06])
        reader.field.place(try MifareClassicTag(image: image))
        let (supervisor, log) = reader.watch()
        let arrived = try await log.wait(for: 2)[1]
        supervisor.stop()
        try await log.waitUntilFinished()
        #expect(arrived.tag?.type == "mifare-classic-1k")
        #expect(arrived.ndefError == "tag is not NDEF formatted: sector 1 does not open with the NFC Forum public key")
        await #expect(throws: TagDriverError.notFormatted("sector 1 does not open with the NFC Forum public key")) {
            try await TagAccess.withTag(device: reader.device, drivers: .underTest, timeout: .seconds(10)) { _, driver in
                try driver.write(message: NDEFMessage(records: [.text("overwritten")]).encoded())
            }
        }
        #expect(reader.field.tag(uid: Self.classicUID)?.memory == image)
    }

    @Test(arguments: Backend.allCases)
    func aFeliCaCardOutsideTheNFCForumIsNamedNotRead(backend: Backend) async throws {
        let reader = try await Reader(backend)
        defer { reader.close() }
        // A transit-card system code: no answer to polling for 12FC.
        reader.field.place(try Type3Tag(idm: Self.felicaIDm, message: [], systemCode: [0x00, 0x03]))
        let (supervisor, log) = reader.watch()
        defer { supervisor.stop() }
        let arrived = try await log.wait(for: 2)[1]
        #expect(arrived.tag?.type == "felica")
        #expect(arrived.tag?.nfcForumType == nil)
        #expect(arrived.tag?.uid.bytes == Self.felicaIDm)
        #expect(arrived.ndefError == "tagrouter reads no NDEF from felica tags")
    }

    /// The message on `tag` as its driver reads it straight from the model.
    static func message(on tag: some SimulatedTag, type: String) throws -> [UInt8]? {
        let driver = try #require(TagDrivers.driver(forType: type, uid: tag.activation.uid, transport: ModelTransport(tag)))
        return try driver.read().message
    }
}

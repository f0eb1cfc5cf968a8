import NDEF
import OrderedJSON
import PN532Sim
import TagCore
import TagKit
import Testing
import TestSupport

@testable import ReaderPCSC
@testable import TagReader

/// ISO 15693 (NFC Forum Type 5) tags through a real pcscd: vpcd's card answers
/// as an ACR1552U does for an ICODE SLIX (ATR standard `0B`, GET DATA least
/// significant byte first, READ BINARY on blocks), the reader names the chip from
/// the UID and reads the NDEF message through TagKit's Type 5 driver.
@Suite(.serialized) struct Type5PCSCTests {
    /// `E0 04 01 10 …`: NXP, ICODE family, type indicator SLIX.
    static let uid = ICODESlixTag.uid(.slix, serial: [0x12, 0x34, 0x56, 0x78])

    /// Runs `body` with the tests' pcscd, its vpcd card, and a reader named `jukebox` watching it (connected).
    static func watching(_ body: (VPCDCard, EventLog) async throws -> Void) async throws {
        let daemon = try PCSCDaemon.shared.get()
        try await daemon.withCard { card, slot in
            let supervisor = ReaderSupervisor(readers: [ReaderConfig.testing(name: "jukebox", device: slot.device)], drivers: .underTest)
            defer { supervisor.stop() }
            let log = EventLog(supervisor)
            try await log.wait(for: 1)
            try await body(card, log)
        }
    }

    @Test func aSLIXTapReachesAnEventWithItsUIDTypeAndURI() async throws {
        try await Self.watching { card, log in
            card.place(try ICODESlixTag(.slix, uid: Self.uid, message: NDEFMessage(records: [.uri("https://example.com/tonie/42")]).encoded()))
            let json = try await log.wait(for: 2)[1].json
            #expect(json["event"] == "tag.arrived")
            #expect(json["reader"] == "jukebox")
            // Most significant byte first, as phones show it, though the reader gave it the other way round.
            #expect(json.value(atPath: "tag.uid") == "e004011012345678")
            #expect(json.value(atPath: "tag.uid_dashed") == "E0-04-01-10-12-34-56-78")
            #expect(json.value(atPath: "tag.type") == "icode-slix")
            #expect(json.value(atPath: "tag.nfc_forum_type") == 5)
            #expect(json.value(atPath: "tag.ndef_capacity") == .int(Int64(Type2TLVArea.capacity(dataAreaSize: 108))))
            #expect(json.value(atPath: "tag.writable") == true)
            #expect(json["ndef_error"] == nil)
            #expect(json["uri"] == "https://example.com/tonie/42")
            card.removeAll()
            #expect(try await log.kinds(3).last == "tag.removed e004011012345678")
        }
    }

    @Test func aHostileCapabilityContainerIsANamedNDEFErrorAndTheNextTagStillReads() async throws {
        try await Self.watching { card, log in
            // The CC claims 2040 bytes and the NDEF TLV 240 of them: past the 28 blocks the tag answers for.
            let hostile = [0xE1, 0x40, 0xFF, 0x01, 0x03, 0xF0] + [UInt8](repeating: 0xD1, count: 106)
            card.place(try ICODESlixTag(.slix, uid: Self.uid, image: hostile))
            let arrived = try await log.wait(for: 2)[1]
            #expect(arrived.tag?.type == "icode-slix")
            #expect(arrived.ndef == .null || arrived.ndef == nil)
            #expect(arrived.ndefError == "NDEF data on the tag is damaged: block 28 cannot be read: the CC claims 2036 bytes, more than the tag holds")
            let slix2 = ICODESlixTag.uid(.slix2, serial: [9, 8, 7, 6])
            card.replaceAll(with: [try ICODESlixTag(.slix2, uid: slix2, message: NDEFMessage(records: [.text("after")]).encoded())])
            let next = try await log.wait(for: 4)[3]
            #expect(next.tag?.uid.bytes == slix2)
            #expect(next.tag?.type == "icode-slix2")
            #expect(next.text == "after")
        }
    }

    @Test func tagrouterReadReadsASLIX() async throws {
        let daemon = try PCSCDaemon.shared.get()
        try await daemon.withCard { card, slot in
            card.place(try ICODESlixTag(.slix, uid: Self.uid, message: NDEFMessage(records: [.uri("https://example.com/read")]).encoded()))
            let environment = daemon.environment.merging(["LIBNFC_AUTO_SCAN": "false"]) { $1 }
            let read = try await ToolRun(BuiltProducts.tagrouter.path, ["read", "--device", slot.device, "--timeout", "10"], environment: environment)
            #expect(read.status == 0, "\(read.stderr)")
            let event = try JSONValue.parse(read.stdout)
            #expect(event.value(atPath: "tag.uid") == "e004011012345678")
            #expect(event.value(atPath: "tag.type") == "icode-slix")
            #expect(event.value(atPath: "tag.nfc_forum_type") == 5)
            #expect(event["uri"] == "https://example.com/read")
        }
    }
}

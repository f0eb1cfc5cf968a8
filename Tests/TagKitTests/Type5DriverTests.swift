import NDEF
import Testing

@testable import TagKit

/// The Type 5 (ISO 15693) driver against the ICODE SLIX model, and ISO 15693 identity.
@Suite("Type 5 driver")
struct Type5DriverTests {
    static let uid = ICODESlixTag.uid(.slix, serial: [0x12, 0x34, 0x56, 0x78])
    static let message = NDEFMessage(records: [.uri("https://example.com/tonie")]).encoded()

    static func read(_ tag: ICODESlixTag, removedAfter: Int? = nil) throws(TagDriverError) -> NDEFTagContent {
        try Type5Driver(transport: ModelTransport(tag, removedAfter: removedAfter), tagType: tag.typeName).read()
    }

    /// A SLIX whose memory is `head` followed by zeros.
    static func slix(_ head: [UInt8]) throws -> ICODESlixTag {
        try ICODESlixTag(.slix, uid: uid, image: head + [UInt8](repeating: 0, count: 112 - head.count))
    }

    @Test("reads the CC and only the blocks the NDEF TLV covers")
    func reads() throws {
        let transport = ModelTransport(try ICODESlixTag(.slix, uid: Self.uid, message: Self.message))
        let content = try Type5Driver(transport: transport, tagType: "icode-slix").read()
        #expect(content == NDEFTagContent(message: Self.message, capacity: Type2TLVArea.capacity(dataAreaSize: 108), writable: true))
        // The CC, then the NDEF TLV's header and message, 2 + 22 bytes: six 4-byte blocks, not the 27 of the area.
        #expect(Self.message.count == 22)
        #expect(transport.exchanges == 1 + 6)
    }

    @Test("a SLIX2 message longer than 254 bytes (3-byte TLV length) is read whole")
    func readsLongMessage() throws {
        let long = NDEFMessage(records: [.text(String(repeating: "slix2 ", count: 50))]).encoded()
        #expect(long.count > 254)
        let tag = try ICODESlixTag(.slix2, uid: ICODESlixTag.uid(.slix2, serial: [1, 2, 3, 4]), message: long)
        #expect(try Self.read(tag).message == long)
        #expect(try Self.read(tag).capacity == Type2TLVArea.capacity(dataAreaSize: 316))
    }

    @Test("an 8-byte CC (MLEN 0 in byte 2, the size in bytes 6–7) and a read-only CC")
    func eightByteCC() throws {
        let tlv: [UInt8] = [0x03, UInt8(Self.message.count)] + Self.message + [0xFE]
        let content = try Self.read(try Self.slix([0xE1, 0x43, 0x00, 0x01, 0x00, 0x00, 0x00, 0x0E] + tlv))
        #expect(content.message == Self.message)
        #expect(content.capacity == Type2TLVArea.capacity(dataAreaSize: 104))
        #expect(content.writable == false)
    }

    @Test("a formatted tag without a message has none; an empty NDEF TLV is an empty message")
    func blank() throws {
        #expect(try Self.read(try Self.slix([0xE1, 0x40, 0x0E, 0x01, 0xFE])).message == nil)
        #expect(try Self.read(try ICODESlixTag(.slix, uid: Self.uid, message: [])).message == [])
    }

    /// Hostile or damaged CCs and TLVs: each a clear error, never a trap or an endless read.
    static let hostile: [(name: String, head: [UInt8], error: TagDriverError)] = [
        ("not formatted", [0x00, 0x00, 0x00, 0x00],
         .notFormatted("block 0 starts with 0x00, not the Capability Container's E1 or E2")),
        ("mapping version 2", [0xE1, 0x80, 0x0E, 0x01],
         .notFormatted("Capability Container mapping version 2.0 is not supported (major version must be 1)")),
        ("read access denied", [0xE1, 0x4C, 0x0E, 0x01], .unsupported("the Capability Container denies read access (0x4c)")),
        ("NDEF TLV past the area", [0xE1, 0x40, 0x02, 0x01, 0x03, 0x30, 0xD1, 0x01],
         .malformed("the T5T area at byte 4: the ndef TLV's length 48 runs past the end of the 12-byte area")),
        ("CC larger than the memory", [0xE1, 0x40, 0xFF, 0x01, 0x03, 0xF0, 0xD1, 0x01],
         .malformed("block 28 cannot be read: the CC claims 2036 bytes, more than the tag holds")),
        ("TLV length cut off", [0xE1, 0x40, 0x01, 0x01, 0x00, 0x00, 0x03, 0xFF],
         .malformed("the T5T area at byte 6: the ndef TLV's 3-byte length is cut off by the end of the 4-byte area")),
    ]

    @Test("hostile Capability Containers and TLVs are named errors", arguments: hostile.indices)
    func hostileContent(index: Int) throws {
        let (_, head, error) = Self.hostile[index]
        #expect(throws: error) { try Self.read(try Self.slix(head)) }
    }

    @Test("a tag removed mid-read gives .tagRemoved", arguments: [0, 1, 3])
    func removed(after exchanges: Int) throws {
        let tag = try ICODESlixTag(.slix, uid: Self.uid, message: Self.message)
        #expect(throws: TagDriverError.transport(.tagRemoved)) { try Self.read(tag, removedAfter: exchanges) }
    }

    @Test("writing is refused with a reason, before any exchange")
    func writeUnsupported() throws {
        let transport = ModelTransport(try ICODESlixTag(.slix, uid: Self.uid, message: Self.message))
        let driver = try #require(TagDrivers.driver(forType: "icode-slix", uid: Self.uid, transport: transport))
        #expect(throws: TagDriverError.unsupported("writing a ICODE SLIX (NFC Forum Type 5) is not supported yet")) {
            try driver.write(message: [])
        }
        #expect(transport.exchanges == 0)
    }

    @Test("the UID names the chip; other manufacturers are iso15693; all are Type 5")
    func identity() {
        #expect(TagIdentity.identify(iso15693UID: ICODESlixTag.uid(.slix, serial: [1, 2, 3, 4])) == ("icode-slix", 5))
        #expect(TagIdentity.identify(iso15693UID: ICODESlixTag.uid(.slix2, serial: [1, 2, 3, 4])) == ("icode-slix2", 5))
        #expect(TagIdentity.identify(iso15693UID: [0xE0, 0x04, 0x01, 0x00, 1, 2, 3, 4]) == ("icode-sli", 5))
        #expect(TagIdentity.identify(iso15693UID: [0xE0, 0x04, 0x01, 0x18, 1, 2, 3, 4]) == ("ntag5", 5))
        #expect(TagIdentity.identify(iso15693UID: [0xE0, 0x04, 0x02, 0x10, 1, 2, 3, 4]) == ("icode-slix-s", 5))
        #expect(TagIdentity.identify(iso15693UID: [0xE0, 0x04, 0x03, 0x00, 1, 2, 3, 4]) == ("icode-sli-l", 5))
        #expect(TagIdentity.identify(iso15693UID: [0xE0, 0x02, 0x26, 0x00, 1, 2, 3, 4]) == ("iso15693", 5))
        #expect(TagDriverError.displayName("icode-slix2") == "ICODE SLIX2")
    }

    @Test("a reader's least-significant-first UID is turned around; one already E0-first is kept")
    func uidOrder() {
        let msbFirst: [UInt8] = [0xE0, 0x04, 0x01, 0x10, 0x12, 0x34, 0x56, 0x78]
        #expect(TagIdentity.iso15693UID(fromReader: msbFirst.reversed()) == msbFirst)
        #expect(TagIdentity.iso15693UID(fromReader: msbFirst) == msbFirst)
    }
}

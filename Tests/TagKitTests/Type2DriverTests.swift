import NDEF
import Testing
@testable import TagKit

/// The Type 2 driver against the NTAG/Ultralight models.
@Suite("Type 2 driver")
struct Type2DriverTests {
    static let uid: [UInt8] = [0x04, 0xA2, 0x24, 0xB2, 0xC3, 0x5E, 0x80]
    static let message = NDEFMessage(records: [.uri("https://example.com/a"), .text("Cheek to Cheek")]).encoded()

    @Test("reads the message, capacity and writability", arguments: Type2TagType.allCases)
    func reads(type: Type2TagType) throws {
        let transport = ModelTransport(try Type2Tag(type, uid: Self.uid, message: Self.message))
        let content = try Type2Driver(transport: transport, tagType: type.rawValue).read()
        #expect(content == NDEFTagContent(message: Self.message, capacity: Type2TLVArea.capacity(dataAreaSize: type.dataAreaSize), writable: true))
    }

    @Test("an NTAG216 is read with FAST_READ in few commands; an Ultralight with READ")
    func fastRead() throws {
        let big = [UInt8](repeating: 0x41, count: 800)
        let message = NDEFMessage(records: [.mime("text/plain", big)]).encoded()
        let ntag = ModelTransport(try Type2Tag(.ntag216, uid: Self.uid, message: message))
        #expect(try Type2Driver(transport: ntag, tagType: "ntag216").read().message == message)
        #expect(ntag.exchanges == 1 + 4)  // CC read + 860 bytes in 240-byte FAST_READs
        let ultralight = ModelTransport(try Type2Tag(.ultralight, uid: Self.uid, message: Self.message))
        #expect(try Type2Driver(transport: ultralight, tagType: "mifare-ultralight").read().message == Self.message)
        #expect(ultralight.exchanges == 1 + 2)  // CC read (with pages 4–6) + 16-byte READs up to the message's end (44 bytes)
    }

    @Test("only the pages up to the end of the NDEF TLV are read", arguments: Type2TagType.allCases)
    func readsOnlyWhatTheMessageNeeds(type: Type2TagType) throws {
        let blank = ModelTransport(try Type2Tag(type, uid: Self.uid, message: []))
        #expect(try Type2Driver(transport: blank, tagType: type.rawValue).read().message == [])
        #expect(blank.exchanges == 1)  // the empty NDEF TLV is in the CC read's 12 data bytes
        let short = ModelTransport(try Type2Tag(type, uid: Self.uid, message: Self.message))
        #expect(try Type2Driver(transport: short, tagType: type.rawValue).read().message == Self.message)
        #expect(short.exchanges == (type == .ultralight ? 3 : 2))
    }

    @Test("a formatted tag with no NDEF TLV reads as no message; a damaged TLV says where")
    func emptyAndDamaged() throws {
        var image = try Type2Tag(.ntag213, uid: Self.uid, message: []).memory
        image[16] = 0xFE
        let empty = ModelTransport(try Type2Tag(.ntag213, image: image))
        #expect(try Type2Driver(transport: empty, tagType: "ntag213").read().message == nil)
        image[16...17] = [0x03, 0xF0]
        let damaged = ModelTransport(try Type2Tag(.ntag213, image: image))
        #expect {
            try Type2Driver(transport: damaged, tagType: "ntag213").read()
        } throws: { error in
            (error as? TagDriverError)?.description.contains("at byte 16") == true
        }
    }

    @Test("a CC announcing more memory than page numbers reach is refused, not trusted")
    func oversizedCC() throws {
        var image = try Type2Tag(.ntag216, uid: Self.uid, message: []).memory
        image[14] = 0xFF
        let transport = ModelTransport(try Type2Tag(.ntag216, image: image))
        #expect(throws: TagDriverError.malformed("the CC (byte 14) announces a 2040-byte data area; READ reaches 1008")) {
            try Type2Driver(transport: transport, tagType: "ntag216").read()
        }
    }

    @Test("an unformatted tag is reported as such")
    func unformatted() throws {
        var image = try Type2Tag(.ntag213, uid: Self.uid, message: []).memory
        image[12] = 0x00
        let transport = ModelTransport(try Type2Tag(.ntag213, image: image))
        #expect {
            try Type2Driver(transport: transport, tagType: "ntag213").read()
        } throws: { error in
            if case .notFormatted = error as? TagDriverError { return true }
            return false
        }
    }

    @Test("writes a message, reads it back, and leaves pages past the terminator alone")
    func writes() throws {
        let transport = ModelTransport(try Type2Tag(.ntag215, uid: Self.uid, message: [UInt8](repeating: 0xD0, count: 300)))
        let driver = Type2Driver(transport: transport, tagType: "ntag215")
        try driver.write(message: Self.message)
        #expect(try driver.read().message == Self.message)
        let long = NDEFMessage(records: [.mime("application/octet-stream", [UInt8](repeating: 7, count: 400))]).encoded()
        try driver.write(message: long)
        #expect(try driver.read().message == long)
    }

    @Test("refuses a message that does not fit, before writing anything")
    func capacity() throws {
        let transport = ModelTransport(try Type2Tag(.ntag215, uid: Self.uid, message: Self.message))
        let message = [UInt8](repeating: 0, count: 612)
        #expect(throws: TagDriverError.doesNotFit(size: 612, capacity: 492, tagType: "ntag215")) {
            try Type2Driver(transport: transport, tagType: "ntag215").write(message: message)
        }
        #expect(TagDriverError.doesNotFit(size: 612, capacity: 492, tagType: "ntag215").description
                == "message is 612 bytes; this NTAG215 holds 492")
        #expect(transport.exchanges == 1)
    }

    @Test("lock makes the tag read-only; writes are then refused and the message stays readable")
    func lock() throws {
        let transport = ModelTransport(try Type2Tag(.ntag213, uid: Self.uid, message: Self.message))
        let driver = Type2Driver(transport: transport, tagType: "ntag213")
        try driver.lock()
        let content = try driver.read()
        #expect(content.writable == false && content.message == Self.message)
        #expect(throws: TagDriverError.readOnly(tagType: "ntag213")) { try driver.write(message: []) }
        // The lock bits hold even for a writer that ignores the CC.
        var tag = transport.tag
        #expect(throws: TagTransportError.refused(status: [0x00])) { try tag.exchange([0xA2, 4, 0, 0, 0, 0]) }
        #expect(throws: TagTransportError.refused(status: [0x00])) { try tag.exchange([0xA2, 20, 0, 0, 0, 0]) }
    }

    @Test("a tag removed mid-read or mid-write gives .tagRemoved", arguments: [1, 2, 3])
    func removed(after exchanges: Int) throws {
        let big = NDEFMessage(records: [.mime("text/plain", [UInt8](repeating: 0x41, count: 700))]).encoded()
        let reading = ModelTransport(try Type2Tag(.ntag216, uid: Self.uid, message: big), removedAfter: exchanges)
        #expect(throws: TagDriverError.transport(.tagRemoved)) {
            try Type2Driver(transport: reading, tagType: "ntag216").read()
        }
        #expect(TagDriverError.transport(.tagRemoved).description == "tag removed during read")
        let writing = ModelTransport(try Type2Tag(.ntag216, uid: Self.uid, message: []), removedAfter: exchanges)
        #expect(throws: TagDriverError.transport(.tagRemoved)) {
            try Type2Driver(transport: writing, tagType: "ntag216").write(message: big)
        }
    }
}

import NDEF
import Testing
@testable import TagKit

/// The Type 1 (Topaz) driver against the static-memory model.
@Suite("Type 1 driver")
struct Type1DriverTests {
    static let uid: [UInt8] = [0x01, 0x6F, 0x2A, 0x3B, 0x4C, 0x5D, 0x00]
    static let message = NDEFMessage(records: [.uri("https://example.com/topaz")]).encoded()

    @Test("reads the message from RALL; capacity is the 92-byte area less the TLV header")
    func reads() throws {
        let transport = ModelTransport(try Type1Tag(uid: Self.uid, message: Self.message))
        #expect(try Type1Driver(transport: transport).read() == NDEFTagContent(message: Self.message, capacity: 90, writable: true))
        #expect(transport.exchanges == 1)
    }

    @Test("writes byte by byte, the length last, and reads back; refuses what does not fit")
    func writes() throws {
        let transport = ModelTransport(try Type1Tag(uid: Self.uid, message: Self.message))
        let driver = Type1Driver(transport: transport)
        let next = NDEFMessage(records: [.text("Topaz"), .uri("https://example.com/t1")]).encoded()
        try driver.write(message: next)
        #expect(try driver.read().message == next)
        #expect(throws: TagDriverError.doesNotFit(size: 91, capacity: 90, tagType: "type1")) {
            try driver.write(message: [UInt8](repeating: 0, count: 91))
        }
    }

    @Test("lock sets the CC and lock bytes; writes are refused after")
    func lock() throws {
        let transport = ModelTransport(try Type1Tag(uid: Self.uid, message: Self.message))
        let driver = Type1Driver(transport: transport)
        try driver.lock()
        #expect(try driver.read().writable == false)
        #expect(throws: TagDriverError.readOnly(tagType: "type1")) { try driver.write(message: []) }
        var tag = transport.tag
        #expect(throws: TagTransportError.refused(status: [0x00])) { try tag.exchange([0x53, 20, 0x00]) }
    }

    @Test("identified from SENS_RES; a tag removed before RALL gives .tagRemoved")
    func identityAndRemoval() throws {
        let tag = try Type1Tag(uid: Self.uid, message: [])
        #expect(TagIdentity.identify(atqa: tag.activation.atqa, sak: tag.activation.sak) == ("type1", 1))
        #expect(tag.activation.isJewel && !tag.activation.isISODEP)
        let transport = ModelTransport(tag, removedAfter: 0)
        #expect(throws: TagDriverError.transport(.tagRemoved)) { try Type1Driver(transport: transport).read() }
    }
}

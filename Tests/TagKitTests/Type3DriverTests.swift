import NDEF
import Testing
@testable import TagKit

/// The Type 3 (FeliCa) driver against the FeliCa Lite-S–like model.
@Suite("Type 3 driver")
struct Type3DriverTests {
    static let idm: [UInt8] = [0x01, 0x2E, 0x45, 0x7A, 0x9B, 0x11, 0x22, 0x33]
    static let message = NDEFMessage(records: [.uri("https://example.com/felica")]).encoded()

    @Test("reads the message through the attribute block, several blocks per Check")
    func reads() throws {
        let big = NDEFMessage(records: [.text(String(repeating: "f", count: 150))]).encoded()
        let transport = ModelTransport(try Type3Tag(idm: Self.idm, message: big))
        let content = try Type3Driver(transport: transport, idm: Self.idm).read()
        #expect(content == NDEFTagContent(message: big, capacity: 208, writable: true))
        #expect(transport.exchanges == 1 + 3)  // block 0, then 10 blocks 4 at a time
    }

    @Test("writes with WriteF set during the write, reads back; refuses what does not fit")
    func writes() throws {
        let transport = ModelTransport(try Type3Tag(idm: Self.idm, message: Self.message))
        let driver = Type3Driver(transport: transport, idm: Self.idm)
        let next = NDEFMessage(records: [.text("written"), .uri("https://example.com/2")]).encoded()
        try driver.write(message: next)
        #expect(try driver.read().message == next)
        #expect(Array(transport.tag.memory[9...10]) == [0x00, 0x01])
        #expect(throws: TagDriverError.doesNotFit(size: 300, capacity: 208, tagType: "type3")) {
            try driver.write(message: [UInt8](repeating: 0, count: 300))
        }
        #expect(TagDriverError.doesNotFit(size: 300, capacity: 208, tagType: "type3").description == "message is 300 bytes; this Type 3 tag holds 208")
    }

    @Test("lock marks the tag read-only; a hardware-locked tag refuses writes")
    func lock() throws {
        let transport = ModelTransport(try Type3Tag(idm: Self.idm, message: Self.message))
        let driver = Type3Driver(transport: transport, idm: Self.idm)
        try driver.lock()
        #expect(try driver.read().writable == false)
        #expect(throws: TagDriverError.readOnly(tagType: "type3")) { try driver.write(message: []) }
        let locked = ModelTransport(try Type3Tag(idm: Self.idm, message: Self.message, readOnly: true))
        #expect(throws: TagDriverError.readOnly(tagType: "type3")) { try Type3Driver(transport: locked, idm: Self.idm).write(message: []) }
    }

    @Test("an interrupted write and a bad checksum are reported; another IDm gets silence")
    func damaged() throws {
        var image = try Type3Tag(idm: Self.idm, message: Self.message).memory
        image.replaceSubrange(0..<16, with: Type3Tag.attributeBlock(ndefBlocks: 13, length: Self.message.count, writable: true, writing: true))
        #expect {
            try Type3Driver(transport: ModelTransport(try Type3Tag(idm: Self.idm, image: image)), idm: Self.idm).read()
        } throws: { error in
            if case .malformed = error as? TagDriverError { return true }
            return false
        }
        image[15] &+= 1
        #expect {
            try Type3Driver(transport: ModelTransport(try Type3Tag(idm: Self.idm, image: image)), idm: Self.idm).read()
        } throws: { error in
            if case .notFormatted = error as? TagDriverError { return true }
            return false
        }
        let other = ModelTransport(try Type3Tag(idm: Self.idm, message: Self.message))
        #expect(throws: TagDriverError.transport(.tagRemoved)) {
            try Type3Driver(transport: other, idm: [UInt8](repeating: 9, count: 8)).read()
        }
    }

    @Test("a tag removed mid-read gives .tagRemoved", arguments: [1, 2])
    func removed(after exchanges: Int) throws {
        let big = NDEFMessage(records: [.text(String(repeating: "f", count: 150))]).encoded()
        let transport = ModelTransport(try Type3Tag(idm: Self.idm, message: big), removedAfter: exchanges)
        #expect(throws: TagDriverError.transport(.tagRemoved)) { try Type3Driver(transport: transport, idm: Self.idm).read() }
    }

    @Test("FeliCa identity comes from the system code")
    func identity() {
        #expect(TagIdentity.identify(felicaSystemCode: [0x12, 0xFC]) == ("type3", 3))
        #expect(TagIdentity.identify(felicaSystemCode: [0x88, 0xB4]) == ("felica", nil))
    }
}

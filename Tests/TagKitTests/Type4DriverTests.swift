import NDEF
import Testing
@testable import TagKit

/// The Type 4 driver against the ISO-DEP model.
@Suite("Type 4 driver")
struct Type4DriverTests {
    static let uid: [UInt8] = [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]
    static let message = NDEFMessage(records: [.uri("https://www.home-assistant.io/tag/front-door")]).encoded()

    @Test("reads the NDEF file in chunks the CC allows")
    func reads() throws {
        let big = NDEFMessage(records: [.mime("text/plain", [UInt8](repeating: 0x42, count: 500))]).encoded()
        let transport = ModelTransport(try Type4Tag(uid: Self.uid, message: big))
        let content = try Type4Driver(transport: transport).read()
        #expect(content == NDEFTagContent(message: big, capacity: 2046, writable: true))
    }

    @Test("an empty NDEF file reads as no message")
    func empty() throws {
        let transport = ModelTransport(try Type4Tag(uid: Self.uid, message: []))
        #expect(try Type4Driver(transport: transport).read().message == nil)
    }

    @Test("writes and reads back; refuses what does not fit and read-only files")
    func writes() throws {
        let transport = ModelTransport(try Type4Tag(uid: Self.uid, message: Self.message, fileSize: 256))
        let driver = Type4Driver(transport: transport)
        let next = NDEFMessage(records: [.text("hello"), .uri("https://example.com")]).encoded()
        try driver.write(message: next)
        #expect(try driver.read().message == next)
        #expect(throws: TagDriverError.doesNotFit(size: 300, capacity: 254, tagType: "type4")) {
            try driver.write(message: [UInt8](repeating: 0, count: 300))
        }
        let locked = ModelTransport(try Type4Tag(uid: Self.uid, message: Self.message, writable: false))
        #expect(throws: TagDriverError.readOnly(tagType: "type4")) { try Type4Driver(transport: locked).write(message: next) }
        #expect(try Type4Driver(transport: locked).read().writable == false)
        #expect(throws: TagDriverError.self) { try driver.lock() }
    }

    @Test("a tag removed mid-read gives .tagRemoved", arguments: [1, 3, 5])
    func removed(after exchanges: Int) throws {
        let transport = ModelTransport(try Type4Tag(uid: Self.uid, message: Self.message), removedAfter: exchanges)
        #expect(throws: TagDriverError.transport(.tagRemoved)) { try Type4Driver(transport: transport).read() }
    }
}

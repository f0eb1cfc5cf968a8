import NDEF
import Testing
@testable import TagKit

/// The MIFARE Classic driver against the 1K model.
@Suite("MIFARE Classic driver")
struct MifareClassicDriverTests {
    static let uid: [UInt8] = [0x94, 0xD8, 0xFC, 0x5F]
    static let message = NDEFMessage(records: [.text("Cheek to Cheek", locale: "en")]).encoded()

    @Test("reads the NDEF sectors the MAD lists, with the public keys")
    func reads() throws {
        let big = NDEFMessage(records: [.mime("text/plain", [UInt8](repeating: 0x43, count: 200))]).encoded()
        let transport = ModelTransport(try MifareClassicTag(uid: Self.uid, message: big))
        let content = try MifareClassicDriver(transport: transport, uid: Self.uid).read()
        #expect(content == NDEFTagContent(message: big, capacity: 716, writable: true))
    }

    @Test("writes across sectors and reads back")
    func writes() throws {
        let transport = ModelTransport(try MifareClassicTag(uid: Self.uid, message: Self.message))
        let driver = MifareClassicDriver(transport: transport, uid: Self.uid)
        let long = NDEFMessage(records: [.mime("text/plain", [UInt8](repeating: 0x44, count: 300))]).encoded()
        try driver.write(message: long)
        #expect(try driver.read().message == long)
        #expect(throws: TagDriverError.doesNotFit(size: 800, capacity: 716, tagType: "mifare-classic-1k")) {
            try driver.write(message: [UInt8](repeating: 0, count: 800))
        }
    }

    @Test("a wrong key, a broken MAD and a blank card are told apart")
    func failures() throws {
        var image = try MifareClassicTag(uid: Self.uid, message: Self.message).memory
        image[16] ^= 0xFF  // MAD CRC
        #expect {
            try MifareClassicDriver(transport: ModelTransport(try MifareClassicTag(image: image)), uid: Self.uid).read()
        } throws: { error in
            (error as? TagDriverError) == .notFormatted("the MAD's CRC does not match")
        }
        #expect {
            try MifareClassicDriver(transport: ModelTransport(try MifareClassicTag(uid: Self.uid, message: [])), uid: [1, 2, 3, 4]).read()
        } throws: { error in
            if case .notFormatted = error as? TagDriverError { return true }
            return false
        }
    }

    @Test("a tag removed mid-read gives .tagRemoved", arguments: [1, 4, 8])
    func removed(after exchanges: Int) throws {
        let transport = ModelTransport(try MifareClassicTag(uid: Self.uid, message: Self.message), removedAfter: exchanges)
        #expect(throws: TagDriverError.transport(.tagRemoved)) {
            try MifareClassicDriver(transport: transport, uid: Self.uid).read()
        }
    }
}

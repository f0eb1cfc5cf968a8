import NDEF
import Testing
@testable import TagKit

/// NTAG 213/215/216 passwords: the model answers PWD_AUTH and guards pages from AUTH0 on
/// as the data sheet says; the driver protects a tag and authenticates to it.
@Suite("NTAG password")
struct Type2PasswordTests {
    static let uid: [UInt8] = [0x04, 0xA2, 0x24, 0xB2, 0xC3, 0x5E, 0x80]
    static let message = NDEFMessage(records: [.uri("https://example.com/a")]).encoded()
    static let password: [UInt8] = [0x12, 0x34, 0x56, 0x78]
    static let pack: [UInt8] = [0xAB, 0xCD]
    static let nak = TagTransportError.refused(status: [0x00])

    /// The tag as it is after leaving the field and coming back: no authentication.
    static func reselected<Tag: SimulatedTag>(_ transport: ModelTransport<Tag>) -> ModelTransport<Tag> {
        var tag = transport.tag
        tag.reset()
        return ModelTransport(tag)
    }

    @Test("a fresh tag: AUTH0 FFh guards nothing, PWD and PACK read as zeros, a wrong password is a NAK")
    func fresh() throws {
        var tag = try Type2Tag(.ntag213, uid: Self.uid, message: Self.message)
        _ = try tag.exchange([0xA2, 0x2B] + Self.password)
        _ = try tag.exchange([0xA2, 0x2C] + Self.pack + [0, 0])
        let configuration = try tag.exchange([0x30, 0x29])
        #expect(configuration == [0x04, 0x00, 0x00, 0xFF, 0x00, 0x05, 0x00, 0x00] + [UInt8](repeating: 0, count: 8))
        #expect(throws: Self.nak) { try tag.exchange([0x1B, 0xFF, 0xFF, 0xFF, 0xFF]) }
        #expect(try tag.exchange([0x1B] + Self.password) == Self.pack)
        #expect(try Type2Driver(transport: ModelTransport(tag), tagType: "ntag213").firstPasswordProtectedPage() == nil)
    }

    @Test("raw commands: from AUTH0 on a write needs PWD_AUTH, reads stay open; PROT guards reads too; CFGLCK freezes CFG0/CFG1")
    func model() throws {
        var tag = try Type2Tag(.ntag215, uid: Self.uid, message: Self.message)
        _ = try tag.exchange([0xA2, 0x85] + Self.password)
        _ = try tag.exchange([0xA2, 0x86] + Self.pack + [0, 0])
        _ = try tag.exchange([0xA2, 0x83, 0x04, 0x00, 0x00, 0x10])  // AUTH0 = page 16
        #expect(try tag.exchange([0xA2, 15, 1, 2, 3, 4]) == [])
        #expect(throws: Self.nak) { try tag.exchange([0xA2, 16, 1, 2, 3, 4]) }
        #expect(throws: Self.nak) { try tag.exchange([0xA2, 0x85, 0, 0, 0, 0]) }
        #expect(try tag.exchange([0x30, 16]).count == 16)
        #expect(try tag.exchange([0x30, 0x85]).prefix(8) == [0, 0, 0, 0, 0, 0, 0, 0])
        #expect(throws: Self.nak) { try tag.exchange([0x1B, 0xFF, 0xFF, 0xFF, 0xFF]) }
        #expect(try tag.exchange([0x1B] + Self.password) == Self.pack)
        #expect(try tag.exchange([0xA2, 16, 1, 2, 3, 4]) == [])
        _ = try tag.exchange([0xA2, 0x84, 0x80, 0x00, 0x00, 0x00])  // PROT: reads need the password too
        tag.reset()
        #expect(try tag.exchange([0x30, 12]).count == 16)
        #expect(throws: Self.nak) { try tag.exchange([0x30, 16]) }
        #expect(throws: Self.nak) { try tag.exchange([0x3A, 4, 20]) }
        #expect(try tag.exchange([0x1B] + Self.password) == Self.pack)
        #expect(try tag.exchange([0x30, 16]).prefix(4) == [1, 2, 3, 4])
        _ = try tag.exchange([0xA2, 0x84, 0x40, 0x00, 0x00, 0x00])  // CFGLCK
        #expect(throws: Self.nak) { try tag.exchange([0xA2, 0x83, 0x04, 0x00, 0x00, 0xFF]) }
        #expect(try tag.exchange([0x1B] + Self.password) == Self.pack)  // the NAK ended the authentication
        #expect(try tag.exchange([0xA2, 0x85] + [9, 9, 9, 9]) == [])  // PWD and PACK stay writable
    }

    @Test("protect writes PWD, PACK, ACCESS and AUTH0 in the chip's own configuration pages", arguments: [
        (Type2TagType.ntag213, 0x29), (.ntag215, 0x83), (.ntag216, 0xE3),
    ])
    func protect(type: Type2TagType, cfg0: Int) throws {
        let transport = ModelTransport(try Type2Tag(type, uid: Self.uid, message: Self.message))
        try Type2Driver(transport: transport, tagType: type.rawValue).protect(password: Self.password, pack: Self.pack)
        let memory = transport.tag.memory
        #expect(Array(memory[(cfg0 * 4)..<(cfg0 * 4 + 16)]) == [0x04, 0x00, 0x00, 0x04, 0x00, 0x05, 0x00, 0x00] + Self.password + Self.pack + [0, 0])
        let later = Type2Driver(transport: Self.reselected(transport), tagType: type.rawValue)
        #expect(try later.firstPasswordProtectedPage() == 4)
        #expect(try later.read().message == Self.message)
        #expect(throws: TagDriverError.transport(Self.nak)) { try later.write(message: NDEFMessage(records: [.text("x")]).encoded()) }
    }

    @Test("authenticate: the right password and PACK open writes; a wrong password is a NAK, a wrong PACK is named")
    func authenticate() throws {
        let transport = ModelTransport(try Type2Tag(.ntag216, uid: Self.uid, message: Self.message))
        try Type2Driver(transport: transport, tagType: "ntag216").protect(password: Self.password, pack: Self.pack)

        let wrongPassword = Type2Driver(transport: Self.reselected(transport), tagType: "ntag216")
        #expect(throws: TagDriverError.passwordRefused(tagType: "ntag216")) { try wrongPassword.authenticate(password: [1, 2, 3, 4], pack: Self.pack) }

        let wrongPACK = TagDriverError.packMismatch(got: Self.pack, expected: [0x00, 0x01])
        #expect(throws: wrongPACK) { try Type2Driver(transport: Self.reselected(transport), tagType: "ntag216").authenticate(password: Self.password, pack: [0x00, 0x01]) }
        #expect(wrongPACK.description == "tag answered PACK abcd, expected 0001: not the tag you protected, or a different password")

        let session = Self.reselected(transport)
        let driver = Type2Driver(transport: session, tagType: "ntag216")
        try driver.authenticate(password: Self.password, pack: Self.pack)
        let next = NDEFMessage(records: [.text("written with the password")]).encoded()
        try driver.write(message: next)
        #expect(try driver.read().message == next)
    }

    @Test("an Ultralight has no password: nothing is guarded, protect is refused before any write")
    func ultralight() throws {
        let transport = ModelTransport(try Type2Tag(.ultralight, uid: Self.uid, message: Self.message))
        let driver = Type2Driver(transport: transport, tagType: "mifare-ultralight")
        #expect(try driver.firstPasswordProtectedPage() == nil)
        #expect(throws: TagDriverError.unsupported("only NTAG 213, 215 and 216 take a password; this is a MIFARE Ultralight")) {
            try driver.protect(password: Self.password, pack: Self.pack)
        }
        #expect(transport.exchanges == 0)
    }
}

import Testing
import NDEF
@testable import TagKit

/// The NTAG/Ultralight model answers like the chip: reads wrap, writes obey lock bits.
@Suite("Type 2 tag model")
struct Type2TagModelTests {
    static let uid: [UInt8] = [0x04, 0xA2, 0x24, 0xB2, 0xC3, 0x5E, 0x80]

    @Test("UID pages carry the check bytes; the CC announces the data area")
    func layout() throws {
        var tag = try Type2Tag(.ntag213, uid: Self.uid, message: [])
        let first = try tag.exchange([0x30, 0x00])
        let bcc0: UInt8 = 0x88 ^ 0x04 ^ 0xA2 ^ 0x24, bcc1: UInt8 = 0xB2 ^ 0xC3 ^ 0x5E ^ 0x80
        let expected: [UInt8] = [0x04, 0xA2, 0x24, bcc0, 0xB2, 0xC3, 0x5E, 0x80, bcc1, 0x48, 0x00, 0x00, 0xE1, 0x10, 0x12, 0x00]
        #expect(first == expected)
        #expect(tag.activation.uid == Self.uid)
        #expect(try tag.exchange([0x60]) == [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x0F, 0x03])
    }

    @Test("READ wraps past the last page; FAST_READ and READ beyond memory NAK")
    func reads() throws {
        var tag = try Type2Tag(.ntag213, uid: Self.uid, message: [])
        #expect(try tag.exchange([0x30, 44]).suffix(12) == (try tag.exchange([0x30, 0x00])).prefix(12))
        #expect(throws: TagTransportError.refused(status: [0x00])) { try tag.exchange([0x30, 45]) }
        #expect(throws: TagTransportError.refused(status: [0x00])) { try tag.exchange([0x3A, 4, 45]) }
        #expect(try tag.exchange([0x3A, 4, 5]).count == 8)
    }

    @Test("the original Ultralight knows neither GET_VERSION nor FAST_READ")
    func ultralight() throws {
        var tag = try Type2Tag(.ultralight, uid: Self.uid, message: [])
        #expect(throws: TagTransportError.tagRemoved) { try tag.exchange([0x60]) }
        #expect(throws: TagTransportError.tagRemoved) { try tag.exchange([0x3A, 4, 5]) }
    }

    @Test("static and dynamic lock bits make pages read-only; UID pages never take writes")
    func locks() throws {
        var tag = try Type2Tag(.ntag215, uid: Self.uid, message: [])
        #expect(try tag.exchange([0xA2, 5, 1, 2, 3, 4]) == [])
        #expect(throws: TagTransportError.refused(status: [0x00])) { try tag.exchange([0xA2, 0, 1, 2, 3, 4]) }
        _ = try tag.exchange([0xA2, 2, 0xFF, 0xFF, 0x20, 0x00])  // lock page 5
        #expect(throws: TagTransportError.refused(status: [0x00])) { try tag.exchange([0xA2, 5, 9, 9, 9, 9]) }
        #expect(try tag.exchange([0x30, 5]).prefix(4) == [1, 2, 3, 4])
        _ = try tag.exchange([0xA2, 130, 0x01, 0x00, 0x00, 0x00])  // first dynamic bit: pages 16…31
        #expect(throws: TagTransportError.refused(status: [0x00])) { try tag.exchange([0xA2, 20, 9, 9, 9, 9]) }
        #expect(try tag.exchange([0xA2, 32, 9, 9, 9, 9]) == [])
        let bcc1: UInt8 = 0xB2 ^ 0xC3 ^ 0x5E ^ 0x80
        #expect(try tag.exchange([0x30, 2]).prefix(4) == [bcc1, 0x48, 0x20, 0x00])
    }

    @Test("a raw image must match the chip's size")
    func imageSize() {
        #expect(throws: TagModelError.imageSize(expected: 540, got: 10)) {
            try Type2Tag(.ntag215, image: [UInt8](repeating: 0, count: 10))
        }
    }
}

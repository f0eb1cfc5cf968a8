import Testing
@testable import PN532Sim

/// The UART frame codec: every frame shape, fed whole, split, and byte by byte.
@Suite("PN532 frame codec")
struct FrameCodecTests {
    /// The wake-up preamble and SAMConfiguration exactly as libnfc's pn532_uart sends them first.
    static let wakeUp: [UInt8] = [0x55, 0x55] + [UInt8](repeating: 0, count: 14)
        + [0x00, 0x00, 0xFF, 0x03, 0xFD, 0xD4, 0x14, 0x01, 0x17, 0x00]

    static func feedings(_ bytes: [UInt8]) -> [[[UInt8]]] {
        let half = bytes.count / 2
        return [[bytes], [Array(bytes[..<half]), Array(bytes[half...])], bytes.map { [$0] }]
    }

    @Test("libnfc's wake-up preamble is skipped and the command behind it decoded, however it arrives")
    func wakeUpPreamble() {
        for feeding in Self.feedings(Self.wakeUp) {
            var decoder = PN532FrameDecoder()
            let frames = feeding.flatMap { decoder.feed($0) }
            #expect(frames == [.command([0x14, 0x01])])
        }
    }

    @Test("ACK and NACK are recognised; the postamble between frames is skipped")
    func ackNack() {
        var decoder = PN532FrameDecoder()
        #expect(decoder.feed(PN532Frame.ack + PN532Frame.nack + PN532Frame.ack) == [.ack, .nack, .ack])
    }

    @Test("normal and extended frames round-trip through encode and decode", arguments: [1, 2, 200, 254, 255, 300, 1000])
    func roundTrip(length: Int) {
        let payload = [UInt8(0x40)] + (0..<(length - 1)).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let frame = PN532Frame.encode(tfi: PN532Frame.hostToChip, payload)
        #expect(frame.count == payload.count + (payload.count + 1 <= 255 ? 8 : 11))  // TFI, header, DCS, postamble
        for feeding in Self.feedings(frame) {
            var decoder = PN532FrameDecoder()
            #expect(feeding.flatMap { decoder.feed($0) } == [.command(payload)])
            #expect(decoder.pendingByteCount <= 1)
        }
    }

    @Test("a response frame carries D5 and the checksums libnfc verifies")
    func responseFrame() {
        #expect(PN532Frame.encode(tfi: PN532Frame.chipToHost, [0x03, 0x32, 0x01, 0x06, 0x07])
                == [0x00, 0x00, 0xFF, 0x06, 0xFA, 0xD5, 0x03, 0x32, 0x01, 0x06, 0x07, 0xE8, 0x00])
    }

    @Test("bad length or data checksums, and a wrong TFI, are reported, not trusted")
    func badChecksums() {
        var good = PN532Frame.encode(tfi: PN532Frame.hostToChip, [0x02])
        var decoder = PN532FrameDecoder()
        var badLength = good
        badLength[4] &+= 1
        #expect(decoder.feed(badLength) == [.malformed("length checksum mismatch")])
        var badData = good
        badData[badData.count - 2] &+= 1
        #expect(decoder.feed(badData) == [.malformed("data checksum mismatch")])
        let wrongTFI = PN532Frame.encode(tfi: PN532Frame.chipToHost, [0x02])
        #expect(decoder.feed(wrongTFI) == [.malformed("frame identifier is not D4 or the frame has no code")])
        good = PN532Frame.encode(tfi: PN532Frame.hostToChip, [0x02])
        #expect(decoder.feed(good) == [.command([0x02])])
    }

    @Test("random bytes never trap and never yield a command with a bad checksum")
    func noise() {
        var generator = SystemRandomNumberGenerator()
        var decoder = PN532FrameDecoder()
        for _ in 0..<2000 {
            let chunk = (0..<Int.random(in: 0...40, using: &generator)).map { _ in
                [0x00, 0xFF, 0xD4, UInt8.random(in: 0...255, using: &generator)].randomElement(using: &generator)!
            }
            for frame in decoder.feed(chunk) {
                if case .command(let payload) = frame {
                    // Anything accepted re-encodes to a frame with valid checksums.
                    var check = PN532FrameDecoder()
                    #expect(check.feed(PN532Frame.encode(tfi: PN532Frame.hostToChip, payload)) == [.command(payload)])
                }
            }
        }
    }
}

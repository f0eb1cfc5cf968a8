import NDEF

/// A MIFARE Classic 1K in memory, NFC Forum formatted by default: a MAD in
/// sector 0 (key A `A0A1A2A3A4A5`) pointing every other sector at the NDEF
/// application, those sectors readable and writable with the public key A
/// `D3F7D3F7D3F7`. Authentication arrives in the PN532's form
/// `60|61 block key(6) uid(4)` (the chip runs Crypto1, not the host); READ
/// (`30`) and the PN532-level WRITE (`A0 block data(16)`) then obey the
/// sector trailer's access bits.
public struct MifareClassicTag: SimulatedTag {
    static let blockCount = 64

    public private(set) var memory: [UInt8]
    private var session: (sector: Int, keyB: Bool)?

    /// A tag whose NDEF sectors (1…15) hold `message` in a TLV area (`Type2TLVArea.build`).
    public init(uid: [UInt8], message: [UInt8], keyB: [UInt8] = [UInt8](repeating: 0xFF, count: 6)) throws(TagModelError) {
        guard uid.count == 4 else { throw .uidLength(expected: [4], got: uid.count) }
        let capacity = MAD.ndefSectorBytes * 15
        let dataArea: [UInt8]
        do {
            dataArea = try Type2TLVArea.build(message: message, dataAreaSize: capacity)
        } catch {
            throw .doesNotFit(size: message.count, capacity: Type2TLVArea.capacity(dataAreaSize: capacity))
        }
        var image = [UInt8](repeating: 0, count: Self.blockCount * 16)
        image[0...3] = uid[...]
        image[4] = uid.reduce(0, ^)
        image[5...7] = [0x08, 0x04, 0x00]
        let aids = (1...15).flatMap { _ in MAD.ndefAID }
        let info: UInt8 = 0x00
        image[16...47] = ArraySlice([MAD.crc([info] + aids), info] + aids)
        image.replaceSubrange(48..<64, with: MAD.publicKey + [0x78, 0x77, 0x88, 0xC1] + keyB)
        var padded = dataArea
        for sector in 1...15 {
            let base = sector * 64
            image.replaceSubrange(base..<(base + 48), with: padded.prefix(48))
            padded.removeFirst(48)
            image.replaceSubrange((base + 48)..<(base + 64), with: MAD.ndefKey + [0x7F, 0x07, 0x88, 0x40] + keyB)
        }
        memory = image
    }

    /// A tag holding exactly `image` (1024 bytes, trailers and keys included).
    public init(image: [UInt8]) throws(TagModelError) {
        guard image.count == Self.blockCount * 16 else { throw .imageSize(expected: Self.blockCount * 16, got: image.count) }
        memory = image
    }

    public var typeName: String { "mifare-classic-1k" }

    public var activation: TagActivation {
        TagActivation(uid: Array(memory[0...3]), atqa: [0x00, 0x04], sak: 0x08)
    }

    public mutating func reset() { session = nil }

    public mutating func exchange(_ command: [UInt8]) throws(TagTransportError) -> [UInt8] {
        guard command.count >= 2, Int(command[1]) < Self.blockCount else { throw .tagRemoved }
        let block = Int(command[1])
        switch (command[0], command.count) {
        case (0x60, 12), (0x61, 12):
            try authenticate(block: block, keyB: command[0] == 0x61, key: Array(command[2...7]), uid: Array(command[8...11]))
            return []
        case (0x30, 2):
            guard let rights = rights(block: block), rights.read else { throw Self.denied }
            let data = Array(memory[(block * 16)..<(block * 16 + 16)])
            return isTrailer(block) ? [UInt8](repeating: 0, count: 6) + data[6...9] + [UInt8](repeating: 0, count: 6) : data
        case (0xA0, 18):
            guard block != 0, let rights = rights(block: block), rights.write else { throw Self.denied }
            memory.replaceSubrange((block * 16)..<(block * 16 + 16), with: command[2...])
            return []
        default:
            throw .tagRemoved
        }
    }

    /// The PN532's status for a failed MIFARE authentication.
    private static let authenticationError: TagTransportError = .refused(status: [0x14])
    /// The tag's NAK for an access the trailer forbids.
    private static let denied: TagTransportError = .refused(status: [0x04])

    private func isTrailer(_ block: Int) -> Bool { block % 4 == 3 }

    private mutating func authenticate(block: Int, keyB: Bool, key: [UInt8], uid: [UInt8]) throws(TagTransportError) {
        let trailer = (block / 4 * 4 + 3) * 16
        let stored = Array(memory[(keyB ? trailer + 10 : trailer)...].prefix(6))
        guard uid == Array(memory[0...3]), key == stored else {
            session = nil
            throw Self.authenticationError
        }
        session = (block / 4, keyB)
    }

    /// What the current session may do with `block`; nil when not authenticated for its sector.
    private func rights(block: Int) -> (read: Bool, write: Bool)? {
        guard let session, session.sector == block / 4 else { return nil }
        let trailer = (block / 4 * 4 + 3) * 16
        let index = block % 4
        let c1 = memory[trailer + 7] >> (4 + index) & 1
        let c2 = memory[trailer + 8] >> index & 1
        let c3 = memory[trailer + 8] >> (4 + index) & 1
        let bits = c1 << 2 | c2 << 1 | c3
        if isTrailer(block) {
            return (true, (bits == 0b001 && !session.keyB) || (bits == 0b011 && session.keyB))
        }
        switch bits {
        case 0b000: return (true, true)
        case 0b010, 0b001: return (true, false)
        case 0b100, 0b110: return (true, session.keyB)
        case 0b011: return (session.keyB, session.keyB)
        case 0b101: return (session.keyB, false)
        default: return (false, false)
        }
    }
}

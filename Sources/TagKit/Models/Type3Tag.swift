/// An NFC Forum Type 3 tag (FeliCa, laid out like a FeliCa Lite-S) in memory:
/// system code 12FC (or another, for a FeliCa card outside the NFC Forum), block 0 the Attribute Information Block, NDEF data from
/// block 1. Answers Request Response (`04`), Check (`06`) on the NDEF service
/// `000B`/`0009`, and Write Without Encryption (`08`) on `0009`. Frames carry
/// FeliCa's length byte first, as the PN532 passes them (`LEN CMD IDm …`);
/// a frame for another IDm gets no answer.
public struct Type3Tag: SimulatedTag {
    /// The NFC Forum system code.
    public static let nfcForumSystemCode: [UInt8] = [0x12, 0xFC]
    /// PMm of a FeliCa Lite-S (IC code F1).
    static let pmm: [UInt8] = [0x00, 0xF1, 0x00, 0x00, 0x00, 0x01, 0x43, 0x00]
    /// Blocks one Check may read (Nbr) and one Write may write (Nbw).
    static let maxCheck = 4, maxWrite = 1

    private let idm: [UInt8]
    /// The system code the tag answers polling with: the NFC Forum's, or another for a FeliCa card outside it.
    private let systemCode: [UInt8]
    /// Block 0 (attribute information) and the NDEF blocks, 16 bytes each.
    public private(set) var memory: [UInt8]
    /// Write-protected in hardware (every Write is refused), as well as marked read-only in block 0.
    private let locked: Bool

    /// A formatted tag with `ndefBlocks` data blocks (13 on a FeliCa Lite-S) holding `message`.
    public init(
        idm: [UInt8], message: [UInt8], ndefBlocks: Int = 13, readOnly: Bool = false, systemCode: [UInt8] = nfcForumSystemCode
    ) throws(TagModelError) {
        guard idm.count == 8 else { throw .uidLength(expected: [8], got: idm.count) }
        guard message.count <= ndefBlocks * 16 else { throw .doesNotFit(size: message.count, capacity: ndefBlocks * 16) }
        self.idm = idm
        self.systemCode = systemCode
        locked = readOnly
        let attribute = Self.attributeBlock(ndefBlocks: ndefBlocks, length: message.count, writable: !readOnly, writing: false)
        memory = attribute + message + [UInt8](repeating: 0, count: ndefBlocks * 16 - message.count)
    }

    /// A tag holding exactly `image` (block 0 first, a whole number of 16-byte blocks).
    public init(idm: [UInt8], image: [UInt8]) throws(TagModelError) {
        guard idm.count == 8 else { throw .uidLength(expected: [8], got: idm.count) }
        guard image.count >= 32, image.count.isMultiple(of: 16) else {
            throw .imageSize(expected: max(32, (image.count + 15) / 16 * 16), got: image.count)
        }
        self.idm = idm
        systemCode = Self.nfcForumSystemCode
        locked = false
        memory = image
    }

    /// An Attribute Information Block: version 1.0, Nbr, Nbw, Nmaxb, WriteF, RWFlag, Ln, checksum.
    public static func attributeBlock(ndefBlocks: Int, length: Int, writable: Bool, writing: Bool) -> [UInt8] {
        var block: [UInt8] = [0x10, UInt8(maxCheck), UInt8(maxWrite), UInt8(ndefBlocks >> 8), UInt8(ndefBlocks & 0xFF),
                              0, 0, 0, 0, writing ? 0x0F : 0x00, writable ? 0x01 : 0x00,
                              UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
        let sum = block.reduce(0) { $0 + Int($1) }
        block += [UInt8(sum >> 8 & 0xFF), UInt8(sum & 0xFF)]
        return block
    }

    public var typeName: String { "type3" }

    public var activation: TagActivation {
        TagActivation(idm: idm, felica: FeliCaParameters(pmm: Self.pmm, systemCode: systemCode))
    }

    public mutating func reset() {}

    public mutating func exchange(_ frame: [UInt8]) throws(TagTransportError) -> [UInt8] {
        guard frame.count >= 10, Int(frame[0]) == frame.count, Array(frame[2..<10]) == idm else { throw .tagRemoved }
        let body = Array(frame.dropFirst(10))
        switch frame[1] {
        case 0x04: return response(0x05, [0x00])
        case 0x06: return check(body)
        case 0x08: return write(body)
        default: throw .tagRemoved
        }
    }

    private func response(_ code: UInt8, _ body: [UInt8]) -> [UInt8] {
        [UInt8(10 + body.count), code] + idm + body
    }

    /// Parses `services(1) code(2)… blocks(1) list…`; the block numbers, or nil when malformed.
    private func blockList(_ body: [UInt8], services allowed: Set<[UInt8]>, limit: Int) -> (blocks: [Int], rest: [UInt8])? {
        guard body.count >= 4, body[0] == 1, allowed.contains(Array(body[1...2])) else { return nil }
        let count = Int(body[3])
        guard (1...limit).contains(count) else { return nil }
        var blocks: [Int] = []
        var index = 4
        while blocks.count < count {
            guard index + 1 < body.count else { return nil }
            if body[index] & 0x80 != 0 {
                blocks.append(Int(body[index + 1]))
                index += 2
            } else {
                guard index + 2 < body.count else { return nil }
                blocks.append(Int(body[index + 1]) | Int(body[index + 2]) << 8)
                index += 3
            }
        }
        guard blocks.allSatisfy({ ($0 + 1) * 16 <= memory.count }) else { return nil }
        return (blocks, Array(body[index...]))
    }

    private static let blockError: [UInt8] = [0x01, 0xA8]

    private func check(_ body: [UInt8]) -> [UInt8] {
        guard let (blocks, _) = blockList(body, services: [[0x0B, 0x00], [0x09, 0x00]], limit: Self.maxCheck) else {
            return response(0x07, Self.blockError)
        }
        return response(0x07, [0x00, 0x00, UInt8(blocks.count)] + blocks.flatMap { memory[($0 * 16)..<($0 * 16 + 16)] })
    }

    private mutating func write(_ body: [UInt8]) -> [UInt8] {
        guard !locked, let (blocks, data) = blockList(body, services: [[0x09, 0x00]], limit: Self.maxWrite),
              data.count == blocks.count * 16 else {
            return response(0x09, Self.blockError)
        }
        for (offset, block) in blocks.enumerated() {
            memory.replaceSubrange((block * 16)..<(block * 16 + 16), with: data[(offset * 16)..<(offset * 16 + 16)])
        }
        return response(0x09, [0x00, 0x00])
    }
}

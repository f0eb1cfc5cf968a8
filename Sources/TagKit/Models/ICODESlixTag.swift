import NDEF

/// An NXP ICODE SLIX or SLIX2 (ISO 15693, NFC Forum Type 5) in memory: 4-byte
/// blocks (28 on a SLIX, 80 on a SLIX2), block 0 the Capability Container as
/// NXP formats it (`E1 40 MLEN 01`, MLEN counting the whole user memory in
/// 8-byte units), the TLV area from block 1. Answers the ISO 15693 commands a
/// reader sends it non-addressed: READ SINGLE BLOCK (`flags 20 block`) with the
/// response flags byte first (`00` + the block), and the error response
/// (`01 code`) for a block past the end or a command it does not know.
/// The UID is kept most significant byte first (`E0 04 01 …`), as phones show it.
public struct ICODESlixTag: SimulatedTag {
    /// The two chips of the family this model plays.
    public enum Chip: String, Sendable, CaseIterable {
        case slix = "icode-slix"
        case slix2 = "icode-slix2"

        /// User memory blocks of 4 bytes.
        public var blocks: Int { self == .slix ? 28 : 80 }

        /// The UID's type indicator bits in byte 3 (bits 36 and 35 of the UID).
        var typeIndicator: UInt8 { self == .slix ? 0x10 : 0x08 }
    }

    public static let blockSize = 4
    /// ISO 15693 error codes the model answers with.
    static let commandNotSupported: UInt8 = 0x01
    static let blockNotAvailable: UInt8 = 0x10

    public let chip: Chip
    private let uid: [UInt8]
    public private(set) var memory: [UInt8]

    /// A formatted tag holding `message` in an NDEF TLV after the CC.
    public init(_ chip: Chip, uid: [UInt8], message: [UInt8]) throws(TagModelError) {
        let size = chip.blocks * Self.blockSize
        let area: [UInt8]
        do {
            area = try Type2TLVArea.build(message: message, dataAreaSize: size - Self.blockSize)
        } catch {
            throw .doesNotFit(size: message.count, capacity: Type2TLVArea.capacity(dataAreaSize: size - Self.blockSize))
        }
        try self.init(chip, uid: uid, image: [0xE1, 0x40, UInt8(size / 8), 0x01] + area)
    }

    /// A tag holding exactly `image` (whole blocks; the user memory, block 0 first).
    public init(_ chip: Chip, uid: [UInt8], image: [UInt8]) throws(TagModelError) {
        guard uid.count == 8 else { throw .uidLength(expected: [8], got: uid.count) }
        guard image.count == chip.blocks * Self.blockSize else { throw .imageSize(expected: chip.blocks * Self.blockSize, got: image.count) }
        self.chip = chip
        self.uid = uid
        memory = image
    }

    /// A UID of this chip: `E0 04 01`, the type indicator, then `serial` (4 bytes).
    public static func uid(_ chip: Chip, serial: [UInt8]) -> [UInt8] {
        [0xE0, 0x04, 0x01, chip.typeIndicator] + serial.prefix(4)
    }

    public var typeName: String { chip.rawValue }

    public var activation: TagActivation { TagActivation(vicinityUID: uid) }

    public mutating func reset() {}

    public mutating func exchange(_ command: [UInt8]) throws(TagTransportError) -> [UInt8] {
        // The address flag (bit 6) would put a UID before the parameters: not sent by tagrouter.
        guard command.count >= 2, command[0] & 0x20 == 0 else { throw .tagRemoved }
        switch command[1] {
        case 0x20 where command.count == 3:
            let start = Int(command[2]) * Self.blockSize
            guard start + Self.blockSize <= memory.count else { return [0x01, Self.blockNotAvailable] }
            return [0x00] + memory[start..<(start + Self.blockSize)]
        default:
            return [0x01, Self.commandNotSupported]
        }
    }
}

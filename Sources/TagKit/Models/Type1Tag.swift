import NDEF

/// An NFC Forum Type 1 tag (Innovision/Broadcom Topaz 512 in its static
/// 120-byte layout) in memory: UID in block 0, CC at bytes 8–11, the TLV data
/// area to byte 103, block D reserved, lock and OTP bytes in block E.
/// Commands arrive as the PN532 passes them, without the UID it appends:
/// RID (`78`), RALL (`00`), READ (`01 addr`), WRITE-E (`53 addr data`); READ
/// and WRITE-E answer the data byte alone, the echoed address stripped.
public struct Type1Tag: SimulatedTag {
    /// Header ROM bytes: HR0 `11` (Topaz, static memory), HR1 `48`.
    static let header: [UInt8] = [0x11, 0x48]
    static let size = 120
    /// The data area after the CC (bytes 12…103).
    public static let dataArea = 12..<104

    public private(set) var memory: [UInt8]

    /// A formatted tag (CC `E1 10 0E 00`) holding `message` in its TLV data area.
    public init(uid: [UInt8], message: [UInt8]) throws(TagModelError) {
        guard uid.count == 7 else { throw .uidLength(expected: [7], got: uid.count) }
        let area: [UInt8]
        do {
            area = try Type2TLVArea.build(message: message, dataAreaSize: Self.dataArea.count)
        } catch {
            throw .doesNotFit(size: message.count, capacity: Type2TLVArea.capacity(dataAreaSize: Self.dataArea.count))
        }
        memory = uid + [0x00, 0xE1, 0x10, 0x0E, 0x00] + area + [UInt8](repeating: 0, count: Self.size - Self.dataArea.upperBound)
    }

    /// A tag holding exactly `image` (120 bytes, blocks 0–E).
    public init(image: [UInt8]) throws(TagModelError) {
        guard image.count == Self.size else { throw .imageSize(expected: Self.size, got: image.count) }
        memory = image
    }

    public var typeName: String { "type1" }

    /// Type 1 tags answer SENS_RES `0C 00` and have no SAK; the PN532 reports the UID's first four bytes.
    public var activation: TagActivation {
        TagActivation(uid: Array(memory[0..<7]), atqa: [0x0C, 0x00], sak: 0)
    }

    public mutating func reset() {}

    public mutating func exchange(_ command: [UInt8]) throws(TagTransportError) -> [UInt8] {
        switch (command.first, command.count) {
        case (0x78, 1): return Self.header + memory[0..<4]
        case (0x00, 1): return Self.header + memory
        case (0x01, 2) where Int(command[1]) < Self.size: return [memory[Int(command[1])]]
        case (0x53, 3) where Int(command[1]) < Self.size:
            let address = Int(command[1])
            guard !isLocked(address) else { throw .refused(status: [0x00]) }
            memory[address] = address >= 0x70 ? memory[address] | command[2] : command[2]
            return [memory[address]]
        default:
            throw .tagRemoved
        }
    }

    /// Block 0 (UID) and D are read-only; lock bytes 0x70/0x71 lock blocks 0–7 and 8–E.
    private func isLocked(_ address: Int) -> Bool {
        let block = address / 8
        if block == 0 || block == 0x0D { return true }
        if block == 0x0E { return false }
        let lock = block < 8 ? memory[0x70] : memory[0x71]
        return lock & (1 << UInt8(block % 8)) != 0
    }
}

/// One TLV of a Type 2 (or MIFARE Classic) NDEF data area.
public struct Type2TLV: Sendable, Equatable {
    /// The TLV tag byte.
    public enum Tag: Sendable, Equatable {
        case null, lockControl, memoryControl, ndefMessage, proprietary, terminator
        /// A tag the NFC Forum has not defined; skipped by its length.
        case other(UInt8)

        init(_ byte: UInt8) {
            switch byte {
            case 0x00: self = .null
            case 0x01: self = .lockControl
            case 0x02: self = .memoryControl
            case 0x03: self = .ndefMessage
            case 0xFD: self = .proprietary
            case 0xFE: self = .terminator
            default: self = .other(byte)
            }
        }

        /// `null`, `lock-control`, `memory-control`, `ndef`, `proprietary`, `terminator`, `0x…`.
        public var name: String {
            switch self {
            case .null: return "null"
            case .lockControl: return "lock-control"
            case .memoryControl: return "memory-control"
            case .ndefMessage: return "ndef"
            case .proprietary: return "proprietary"
            case .terminator: return "terminator"
            case .other(let byte): return "0x" + Hex.string([byte])
            }
        }
    }

    public var tag: Tag
    /// Offset of the tag byte from the start of the area.
    public var offset: Int
    /// Offset of the value from the start of the area.
    public var valueOffset: Int
    /// Length of the value (0 for NULL and Terminator).
    public var length: Int
}

/// What a TLV walk found: the TLVs up to and including the first NDEF Message TLV
/// (or the Terminator), and the NDEF message bytes.
public struct Type2TLVContent: Sendable, Equatable {
    public var tlvs: [Type2TLV]
    /// The value of the first NDEF Message TLV (empty for `03 00`).
    public var ndefMessage: [UInt8]
    /// Offset of the NDEF message from the start of the area.
    public var ndefOffset: Int
}

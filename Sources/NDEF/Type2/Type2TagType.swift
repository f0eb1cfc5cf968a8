/// The Type 2 tags tagrouter knows the memory layout of.
public enum Type2TagType: String, Sendable, Equatable, CaseIterable {
    case ntag213
    case ntag215
    case ntag216
    case ultralight = "mifare-ultralight"

    /// Accepts the raw value and the short name `ultralight`.
    public init?(name: String) {
        if name.lowercased() == "ultralight" { self = .ultralight } else { self.init(rawValue: name.lowercased()) }
    }

    /// Pages READ can return, from page 0.
    public var pageCount: Int {
        switch self {
        case .ntag213: return 45
        case .ntag215: return 135
        case .ntag216: return 231
        case .ultralight: return 16
        }
    }

    /// Bytes of the NDEF data area as the CC states it (from page 4).
    public var dataAreaSize: Int {
        switch self {
        case .ntag213: return 144
        case .ntag215: return 496
        case .ntag216: return 872
        case .ultralight: return 48
        }
    }

    /// The configuration pages at the end of memory (dynamic lock, CFG0, CFG1,
    /// PWD, PACK) as a fresh tag reads them; none on an Ultralight.
    var configurationPages: [UInt8] {
        switch self {
        case .ultralight: return []
        case .ntag213, .ntag215, .ntag216:
            return [0x00, 0x00, 0x00, 0xBD, 0x04, 0x00, 0x00, 0xFF, 0x00, 0x05, 0x00, 0x00] + [UInt8](repeating: 0, count: 8)
        }
    }
}

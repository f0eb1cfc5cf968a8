import NDEF

/// Where an NTAG 213/215/216 keeps its password configuration (data sheet §8.5.7):
/// the four pages after the dynamic lock bytes — CFG0 (AUTH0 in byte 3), CFG1
/// (ACCESS in byte 0), PWD and PACK: 29h–2Ch, 83h–86h and E3h–E6h.
public struct NTAGConfigurationPages: Sendable, Equatable {
    /// CFG0: MIRROR, RFUI, MIRROR_PAGE, AUTH0.
    public let cfg0: Int
    /// CFG1: ACCESS, RFUI, RFUI, RFUI.
    public var cfg1: Int { cfg0 + 1 }
    /// The 32-bit password; reads as zeros.
    public var pwd: Int { cfg0 + 2 }
    /// PACK (2 bytes) and two RFU bytes; reads as zeros.
    public var pack: Int { cfg0 + 3 }

    /// ACCESS bit PROT: set, the password guards reads as well as writes.
    public static let readProtection: UInt8 = 0x80
    /// ACCESS bit CFGLCK: set, CFG0 and CFG1 can never be written again.
    public static let configurationLock: UInt8 = 0x40

    /// Nil for a chip without a password (the original MIFARE Ultralight).
    public init?(_ tagType: Type2TagType) {
        guard tagType != .ultralight else { return nil }
        cfg0 = tagType.pageCount - 4
    }
}

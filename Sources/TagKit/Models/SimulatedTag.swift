/// A tag held in memory: what the PN532 simulator puts in its field and what the
/// tag drivers' unit tests talk to. Implementations are value types; the holder
/// (the simulator's field, `ModelTransport`) owns the mutable copy.
///
/// `exchange` sees a command the way a PN532's InDataExchange hands it to the
/// tag: CRCs and parity already handled, ISO-DEP blocks already unwrapped (a
/// Type 4 tag receives bare APDUs), and for MIFARE Classic the PN532-level
/// authentication `60|61 block key(6) uid(4)` (the chip runs Crypto1 itself).
public protocol SimulatedTag: Sendable {
    /// What the tag answers during activation: UID, ATQA, SAK and, for ISO-DEP tags, the ATS.
    var activation: TagActivation { get }
    /// The tag type as `TagIdentity` names it (`ntag215`, `type4`, `mifare-classic-1k`, …).
    var typeName: String { get }
    /// Answers one command. Throws `.tagRemoved` when the tag would stay silent
    /// (unknown command, not authenticated) and `.refused` for a NAK or an authentication failure.
    mutating func exchange(_ command: [UInt8]) throws(TagTransportError) -> [UInt8]
    /// The tag was halted, deselected or lost the field: forget authentication and protocol state.
    mutating func reset()
    /// The whole memory as bytes (pages, blocks, or CC file followed by the NDEF file), for dumps.
    var memory: [UInt8] { get }
}

/// The answers of a tag during activation, as a PN532 reports them: ATQA, SAK
/// and ATS for an ISO 14443-A tag, PMm and system code for a FeliCa tag.
public struct TagActivation: Sendable, Equatable {
    /// The UID: NFCID1 (4, 7 or 10 bytes) for type A, IDm (NFCID2, 8 bytes) for FeliCa.
    public var uid: [UInt8]
    /// SENS_RES, most significant byte first as the PN532 sends it (`00 44` for NTAG); empty for FeliCa.
    public var atqa: [UInt8]
    /// SEL_RES (0 for FeliCa).
    public var sak: UInt8
    /// The full ATS including its length byte TL, for ISO-DEP tags; nil otherwise.
    public var ats: [UInt8]?
    /// FeliCa's polling answer beyond the IDm; nil for ISO 14443-A tags.
    public var felica: FeliCaParameters?
    /// An ISO 15693 (vicinity, NFC Forum Type 5) tag: no ATQA or SAK, a PN532 cannot see it.
    public var isVicinity = false

    public init(uid: [UInt8], atqa: [UInt8], sak: UInt8, ats: [UInt8]? = nil) {
        self.uid = uid
        self.atqa = atqa
        self.sak = sak
        self.ats = ats
    }

    /// A FeliCa (NFC-F) tag's activation.
    public init(idm: [UInt8], felica: FeliCaParameters) {
        self.init(uid: idm, atqa: [], sak: 0)
        self.felica = felica
    }

    /// An ISO 15693 tag's activation: its 8-byte UID, most significant byte (`E0`) first.
    public init(vicinityUID uid: [UInt8]) {
        self.init(uid: uid, atqa: [], sak: 0)
        isVicinity = true
    }

    /// Whether the tag speaks ISO-DEP (SAK bit 6), so the reader exchanges APDUs with it.
    public var isISODEP: Bool { felica == nil && !isJewel && !isVicinity && sak & 0x20 != 0 }

    /// Whether this is a Type 1 (Jewel/Topaz) tag: SENS_RES without bit-frame anticollision.
    public var isJewel: Bool { felica == nil && atqa.count == 2 && atqa[1] & 0x1F == 0 }
}

/// What a FeliCa tag answers to polling besides its IDm.
public struct FeliCaParameters: Sendable, Equatable {
    /// PMm: IC code and maximum response times, 8 bytes.
    public var pmm: [UInt8]
    /// The system code, most significant byte first (`12 FC` for NFC Forum Type 3).
    public var systemCode: [UInt8]

    public init(pmm: [UInt8], systemCode: [UInt8]) {
        self.pmm = pmm
        self.systemCode = systemCode
    }
}

/// Why a tag model could not be built from what it was given.
public enum TagModelError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The UID has the wrong length for this kind of tag.
    case uidLength(expected: [Int], got: Int)
    /// A raw memory image has the wrong size.
    case imageSize(expected: Int, got: Int)
    /// The content does not fit the tag's memory.
    case doesNotFit(size: Int, capacity: Int)

    public var description: String {
        switch self {
        case .uidLength(let expected, let got):
            return "UID is \(got) bytes; this tag type takes \(expected.map(String.init).joined(separator: " or "))"
        case .imageSize(let expected, let got):
            return "memory image is \(got) bytes; this tag type holds \(expected)"
        case .doesNotFit(let size, let capacity):
            return "content is \(size) bytes; this tag holds \(capacity)"
        }
    }
}

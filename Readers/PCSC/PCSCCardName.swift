/// What a contactless reader's ATR says about the card, as PC/SC part 3
/// (supplemental document for contactless ICCs) has readers build it:
/// `3B 8n 80 01` + historical bytes + TCK. A storage card (MIFARE, NTAG, Topaz,
/// FeliCa) has the historical bytes `80 4F 0C A0 00 00 03 06 SS NN NN 00 00 00 00`
/// with the standard `SS` (`03` ISO 14443-A, `0B` ISO 15693 part 3, `11` FeliCa)
/// and the card name `NN NN`; an ISO 14443-4 card (Type 4)
/// carries its ATS historical bytes (type A) or ATQB bytes (type B) instead.
enum PCSCCardName {
    /// A card as the ATR names it.
    struct Identity: Equatable {
        /// The type name events use (`mifare-ultralight`, `type4`, …).
        var type: String
        var nfcForumType: Int?
        /// How the card's commands reach it through the reader.
        var access: Access
    }

    /// How tagrouter talks to a kind of card through a PC/SC reader.
    enum Access: Equatable {
        /// An ISO 14443-4 card: its own APDUs, sent as they are.
        case apdus
        /// A storage card (Type 2, MIFARE Classic): the reader's READ BINARY `FF B0`,
        /// UPDATE BINARY `FF D6` and, for Classic, LOAD KEYS / GENERAL AUTHENTICATE.
        case storageCommands
        /// A FeliCa card: its own commands (FeliCa's length byte first) wrapped in
        /// the reader's pass-through `FF 00 00 00 Lc`, as ACS readers take them.
        case feliCaCommands
        /// An ISO 15693 card (NFC Forum Type 5): READ BINARY `FF B0` addressing its blocks.
        case vicinityCommands
        /// No portable way to its memory through PC/SC (yet): named, not read.
        case none
    }

    /// PC/SC part 3's registered RID, which marks a storage card's historical bytes.
    static let storageCardPrefix: [UInt8] = [0x80, 0x4F, 0x0C, 0xA0, 0x00, 0x00, 0x03, 0x06]

    /// Standard bytes (PC/SC part 3 supplement, table "standard") of ISO 15693 parts 1–4:
    /// the card name after them varies by maker (`00 14` NXP ICODE, `00 12` TI Tag-it, …),
    /// so the chip is named from its UID instead.
    static let iso15693Standards: ClosedRange<UInt8> = 0x09...0x0C

    /// Card names (PC/SC part 3 supplement, table "card name") of the cards tagrouter tells apart.
    static let cardNames: [UInt16: (type: String, nfcForumType: Int?, access: Access)] = [
        0x0001: ("mifare-classic-1k", nil, .storageCommands), 0x0002: ("mifare-classic-4k", nil, .storageCommands),
        0x0026: ("mifare-mini", nil, .storageCommands),
        0x0003: ("mifare-ultralight", 2, .storageCommands), 0x003A: ("mifare-ultralight-c", 2, .storageCommands),
        0x003D: ("mifare-ultralight-ev1", 2, .storageCommands),
        0x002F: ("type1", 1, .none), 0x0030: ("type1", 1, .none), 0x003B: ("felica", nil, .feliCaCommands),
    ]

    /// The card's identity, or nil when the ATR is not a contactless one.
    static func identify(atr: [UInt8]) -> Identity? {
        guard atr.count >= 5, atr[0] == 0x3B, atr[1] & 0xF0 == 0x80, atr[2] == 0x80, atr[3] == 0x01 else { return nil }
        let historical = Array(atr.dropFirst(4).prefix(Int(atr[1] & 0x0F)))
        guard historical.starts(with: storageCardPrefix), historical.count >= 11 else {
            return Identity(type: "type4", nfcForumType: 4, access: .apdus)
        }
        if iso15693Standards.contains(historical[8]) { return Identity(type: "iso15693", nfcForumType: 5, access: .vicinityCommands) }
        let name = UInt16(historical[9]) << 8 | UInt16(historical[10])
        let known = cardNames[name] ?? ("iso14443a", nil, .none)
        return Identity(type: known.type, nfcForumType: known.nfcForumType, access: known.access)
    }

    /// Readers report NTAG21x as an Ultralight (card name `00 03`); the data area
    /// size in the CC (page 3, byte 2) tells the NTAG apart, as GET_VERSION
    /// cannot be sent through PC/SC portably.
    static func refineType2(_ type: String, ccSizeByte: UInt8) -> String {
        guard type == "mifare-ultralight" else { return type }
        switch ccSizeByte {
        case 0x12: return "ntag213"
        case 0x3E: return "ntag215"
        case 0x6D: return "ntag216"
        default: return type
        }
    }
}

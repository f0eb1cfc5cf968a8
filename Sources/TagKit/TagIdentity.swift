/// Names a tag's type from what activation and GET_VERSION told the reader,
/// with the spelling events use (`ntag213`, `ntag215`, `ntag216`,
/// `mifare-ultralight`, `mifare-ultralight-ev1`, `mifare-classic-1k`,
/// `mifare-classic-4k`, `mifare-mini`, `type4`, `iso14443a`; `type1` for Topaz; for FeliCa `type3`, `felica`).
public enum TagIdentity {
    /// The type name and NFC Forum tag type (nil for MIFARE Classic and unknown tags).
    ///
    /// - Parameters:
    ///   - atqa: SENS_RES as the PN532 reports it, most significant byte first (`[0x00, 0x44]`).
    ///   - sak: SEL_RES.
    ///   - getVersion: the 8-byte GET_VERSION answer of a Type 2 tag, when the reader asked.
    ///   - ats: the ATS of an ISO-DEP tag, when there was one.
    public static func identify(atqa: [UInt8], sak: UInt8, getVersion: [UInt8]? = nil, ats: [UInt8]? = nil)
        -> (type: String, nfcForumType: Int?)
    {
        if sak & 0x20 != 0 || ats != nil { return ("type4", 4) }
        // No bit-frame anticollision in SENS_RES: the Type 1 platform (Topaz).
        if atqa.count == 2, atqa[1] & 0x1F == 0 { return ("type1", 1) }
        switch sak {
        case 0x08, 0x88: return ("mifare-classic-1k", nil)
        case 0x18: return ("mifare-classic-4k", nil)
        case 0x09: return ("mifare-mini", nil)
        case 0x00 where atqa.last == 0x44:
            return (type2Name(getVersion: getVersion), 2)
        default:
            return ("iso14443a", nil)
        }
    }

    /// A FeliCa tag's type from the system code it answered polling with: `type3`
    /// (NFC Forum Type 3, system code 12FC) or `felica`.
    public static func identify(felicaSystemCode systemCode: [UInt8]) -> (type: String, nfcForumType: Int?) {
        systemCode == [0x12, 0xFC] ? ("type3", 3) : ("felica", nil)
    }

    /// Whether `type` names an NFC Forum Type 2 tag.
    public static func identifiesType2(_ type: String) -> Bool {
        type.hasPrefix("ntag") || type.hasPrefix("mifare-ultralight")
    }

    /// Whether a Type 2 tag of this type answers FAST_READ (`3A`).
    public static func supportsFastRead(_ type: String) -> Bool {
        type.hasPrefix("ntag") || type == "mifare-ultralight-ev1"
    }

    /// Whether a Type 2 tag of this type carries NXP's originality signature
    /// (READ_SIG, `3C 00`): the chips GET_VERSION names, the same as answer FAST_READ.
    public static func hasOriginalitySignature(_ type: String) -> Bool {
        supportsFastRead(type)
    }

    private static func type2Name(getVersion version: [UInt8]?) -> String {
        guard let version, version.count == 8, version[1] == 0x04 else { return "mifare-ultralight" }
        switch (version[2], version[6]) {
        case (0x04, 0x0F): return "ntag213"
        case (0x04, 0x11): return "ntag215"
        case (0x04, 0x13): return "ntag216"
        case (0x04, _): return "ntag"
        case (0x03, _): return "mifare-ultralight-ev1"
        default: return "mifare-ultralight"
        }
    }
}

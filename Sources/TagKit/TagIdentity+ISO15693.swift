/// ISO 15693 (NFC Forum Type 5) tags, named from their UID: `E0`, the
/// manufacturer code, then the manufacturer's IC identifier.
extension TagIdentity {
    /// The chip an ISO 15693 UID names (most significant byte first, `E0 04 …`):
    /// NXP's ICODE family by its IC id and type indicator bits (`icode-sli`,
    /// `icode-slix`, `icode-slix2`, `icode-sli-s`, `icode-slix-s`, `icode-sli-l`,
    /// `icode-slix-l`, `ntag5`), `iso15693` for every other chip. Always NFC Forum Type 5.
    public static func identify(iso15693UID uid: [UInt8]) -> (type: String, nfcForumType: Int?) {
        guard uid.count == 8, uid[0] == 0xE0, uid[1] == nxpManufacturerCode else { return ("iso15693", 5) }
        switch (uid[2], uid[3] & 0x18) {
        case (0x01, 0x00): return ("icode-sli", 5)
        case (0x01, 0x10): return ("icode-slix", 5)
        case (0x01, 0x08): return ("icode-slix2", 5)
        case (0x01, _): return ("ntag5", 5)
        case (0x02, let bits): return (bits & 0x10 == 0 ? "icode-sli-s" : "icode-slix-s", 5)
        case (0x03, let bits): return (bits & 0x10 == 0 ? "icode-sli-l" : "icode-slix-l", 5)
        default: return ("iso15693", 5)
        }
    }

    /// NXP's manufacturer code (ISO/IEC 7816-6), the UID's second byte.
    static let nxpManufacturerCode: UInt8 = 0x04

    /// Whether `type` names an ISO 15693 tag (read as NFC Forum Type 5).
    public static func identifiesType5(_ type: String) -> Bool {
        type.hasPrefix("icode-") || type == "ntag5" || type == "iso15693"
    }

    /// An ISO 15693 UID as a reader reported it, most significant byte first. The
    /// UID travels least significant byte first over the air, and PC/SC readers
    /// (ACS ACR1552U, HID OMNIKEY) answer GET DATA that way: `… 04 E0`. Phones and
    /// NXP TagInfo show it the other way round, `E0 04 …`, as events do.
    /// Any UID that does not end in `E0` is taken as already in that order.
    public static func iso15693UID(fromReader bytes: [UInt8]) -> [UInt8] {
        bytes.count == 8 && bytes.last == 0xE0 && bytes.first != 0xE0 ? bytes.reversed() : bytes
    }
}

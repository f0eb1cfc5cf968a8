import TagKit

/// What the firmware of a PC/SC contactless reader (ACR1252U, uTrust, Omnikey)
/// answers for the tag in its field, as PC/SC part 3 has it: an ATR built
/// from the card's type, GET DATA (`FF CA`) for the UID, and for storage cards
/// (Type 2) READ BINARY (`FF B0`) and UPDATE BINARY (`FF D6`) on 4-byte pages.
/// ISO-DEP cards (Type 4) receive every other APDU as it is.
enum ContactlessReaderEmulation {
    static let ok: [UInt8] = [0x90, 0x00]
    /// The reader's "operation failed" status.
    static let failed: [UInt8] = [0x63, 0x00]
    static let notSupported: [UInt8] = [0x6A, 0x81]
    static let wrongLength: [UInt8] = [0x67, 0x00]

    /// The ATR a part 3 reader makes for `tag`.
    static func atr(for tag: any SimulatedTag) -> [UInt8] {
        let historical: [UInt8]
        if tag.activation.isISODEP {
            historical = atsHistoricalBytes(tag.activation.ats ?? [])
        } else {
            let (standard, name): (UInt8, UInt16) =
                switch tag.typeName {
                case "mifare-classic-1k": (0x03, 0x0001)
                case "type1": (0x03, 0x0030)
                case "type3": (0x11, 0x003B)
                default: (0x03, 0x0003)  // NTAG21x and Ultralight: readers say Ultralight
                }
            historical = [0x80, 0x4F, 0x0C, 0xA0, 0x00, 0x00, 0x03, 0x06, standard, UInt8(name >> 8), UInt8(name & 0xFF), 0, 0, 0, 0]
        }
        let body: [UInt8] = [0x80 | UInt8(historical.count), 0x80, 0x01] + historical
        return [0x3B] + body + [body.reduce(0, ^)]
    }

    /// The historical bytes of an ATS (`TL T0 [TA] [TB] [TC] historical…`).
    static func atsHistoricalBytes(_ ats: [UInt8]) -> [UInt8] {
        guard ats.count >= 2 else { return [] }
        let interfaceBytes = [0x10, 0x20, 0x40].filter { Int(ats[1]) & $0 != 0 }.count
        return Array(ats.dropFirst(2 + interfaceBytes))
    }

    /// The reader's answer to `apdu` for `tag`, status word included.
    static func respond(to apdu: [UInt8], tag: inout any SimulatedTag) -> [UInt8] {
        guard apdu.count >= 4 else { return wrongLength }
        guard apdu[0] == 0xFF else {
            guard tag.activation.isISODEP else { return [0x6E, 0x00] }
            return (try? tag.exchange(apdu)) ?? failed
        }
        switch (apdu[1], apdu[2]) {
        case (0xCA, 0x00):
            return tag.activation.uid + ok
        case (0xB0, 0x00) where TagIdentity.identifiesType2(tag.typeName):
            let length = apdu.count > 4 && apdu[4] != 0 ? Int(apdu[4]) : 16
            var data: [UInt8] = []
            while data.count < length {
                guard let pages = try? tag.exchange([0x30, UInt8(truncatingIfNeeded: Int(apdu[3]) + data.count / 4)]) else { return failed }
                data += pages
            }
            return Array(data.prefix(length)) + ok
        case (0xD6, 0x00) where TagIdentity.identifiesType2(tag.typeName):
            guard apdu.count >= 5, apdu[4] % 4 == 0, apdu.count == 5 + Int(apdu[4]) else { return wrongLength }
            let data = Array(apdu[5...])
            for index in stride(from: 0, to: data.count, by: 4) {
                let page = UInt8(truncatingIfNeeded: Int(apdu[3]) + index / 4)
                guard (try? tag.exchange([0xA2, page] + data[index..<(index + 4)])) != nil else { return failed }
            }
            return ok
        default:
            return notSupported
        }
    }
}

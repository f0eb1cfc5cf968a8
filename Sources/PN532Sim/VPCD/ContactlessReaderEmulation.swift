import TagKit

/// What the firmware of a PC/SC contactless reader (ACR1252U, uTrust, Omnikey)
/// answers for the tag in its field, as PC/SC part 3 has it: an ATR built
/// from the card's type, GET DATA (`FF CA`) for the UID, and for storage cards
/// READ BINARY (`FF B0`) and UPDATE BINARY (`FF D6`) — on 4-byte pages for
/// Type 2, on 16-byte blocks for MIFARE Classic, whose sectors open with LOAD
/// KEYS (`FF 82`) and GENERAL AUTHENTICATE (`FF 86`) first. ACR122U LED/buzzer
/// pseudo-APDUs (`FF 00 40`, `FF 00 52`, …) are accepted. FeliCa frames come
/// through ACS's pass-through (`FF 00 00 00`), ISO 15693 cards (Type 5) take
/// READ BINARY on their blocks (`VicinityStorage`); ISO-DEP cards (Type 4) receive
/// every other APDU as it is. The loaded keys are the
/// reader's: they outlive the card, as in a reader's volatile key memory.
struct ContactlessReaderEmulation {
    static let ok: [UInt8] = [0x90, 0x00]
    /// The reader's "operation failed" status.
    static let failed: [UInt8] = [0x63, 0x00]
    static let notSupported: [UInt8] = [0x6A, 0x81]
    static let wrongLength: [UInt8] = [0x67, 0x00]
    /// GENERAL AUTHENTICATE naming a key slot that holds no key.
    static let keyNumberInvalid: [UInt8] = [0x69, 0x88]

    /// The volatile key slots LOAD KEYS fills (ACS readers have two).
    private var keys: [[UInt8]?] = [nil, nil]

    /// The ATR a part 3 reader makes for `tag`.
    static func atr(for tag: any SimulatedTag) -> [UInt8] {
        let historical: [UInt8]
        if tag.activation.isISODEP {
            historical = atsHistoricalBytes(tag.activation.ats ?? [])
        } else if tag.activation.isVicinity {
            historical = storageCardHistoricalBytes(standard: VicinityStorage.standard, name: VicinityStorage.cardName)
        } else {
            let (standard, name): (UInt8, UInt16) =
                switch tag.typeName {
                case "mifare-classic-1k": (0x03, 0x0001)
                case "type1": (0x03, 0x0030)
                case "type3": (0x11, 0x003B)
                default: (0x03, 0x0003)  // NTAG21x and Ultralight: readers say Ultralight
                }
            historical = storageCardHistoricalBytes(standard: standard, name: name)
        }
        let body: [UInt8] = [0x80 | UInt8(historical.count), 0x80, 0x01] + historical
        return [0x3B] + body + [body.reduce(0, ^)]
    }

    /// A storage card's historical bytes: PC/SC part 3's RID, the standard and the card name.
    static func storageCardHistoricalBytes(standard: UInt8, name: UInt16) -> [UInt8] {
        [0x80, 0x4F, 0x0C, 0xA0, 0x00, 0x00, 0x03, 0x06, standard, UInt8(name >> 8), UInt8(name & 0xFF), 0, 0, 0, 0]
    }

    /// The historical bytes of an ATS (`TL T0 [TA] [TB] [TC] historical…`).
    static func atsHistoricalBytes(_ ats: [UInt8]) -> [UInt8] {
        guard ats.count >= 2 else { return [] }
        let interfaceBytes = [0x10, 0x20, 0x40].filter { Int(ats[1]) & $0 != 0 }.count
        return Array(ats.dropFirst(2 + interfaceBytes))
    }

    /// How READ BINARY and UPDATE BINARY address a storage card: the bytes one
    /// address counts (a Type 2 page, a Classic block) and the tag command that
    /// writes one unit; the tag's READ (`30`) returns 16 bytes on both.
    struct StorageAddressing {
        var unit: Int
        var write: UInt8

        static func of(_ tag: any SimulatedTag) -> StorageAddressing? {
            if TagIdentity.identifiesType2(tag.typeName) { return StorageAddressing(unit: 4, write: 0xA2) }
            if tag.typeName.hasPrefix("mifare-classic") { return StorageAddressing(unit: 16, write: 0xA0) }
            return nil
        }
    }

    /// The reader's answer to `apdu` for `tag`, status word included.
    mutating func respond(to apdu: [UInt8], tag: inout any SimulatedTag) -> [UInt8] {
        guard apdu.count >= 4 else { return Self.wrongLength }
        guard apdu[0] == 0xFF else {
            guard tag.activation.isISODEP else { return [0x6E, 0x00] }
            return (try? tag.exchange(apdu)) ?? Self.failed
        }
        switch (apdu[1], apdu[2]) {
        case (0xCA, 0x00) where tag.activation.isVicinity:
            return VicinityStorage.readerUID(tag.activation.uid) + Self.ok
        case (0xCA, 0x00):
            return tag.activation.uid + Self.ok
        case (0x00, _) where Self.isPeripheralCommand(apdu):
            return Self.ok
        case (0x00, 0x00) where tag.activation.felica != nil:
            return Self.passThrough(apdu, tag: &tag)
        case (0x82, 0x00):
            return loadKey(apdu)
        case (0x86, 0x00) where tag.typeName.hasPrefix("mifare-classic"):
            return authenticate(apdu, tag: &tag)
        case (0xB0, _) where tag.activation.isVicinity:
            return VicinityStorage.readBinary(apdu, tag: &tag)
        case (0xB0, 0x00):
            guard let addressing = StorageAddressing.of(tag) else { return Self.notSupported }
            return Self.readBinary(apdu, addressing, tag: &tag)
        case (0xD6, 0x00):
            guard let addressing = StorageAddressing.of(tag) else { return Self.notSupported }
            return Self.updateBinary(apdu, addressing, tag: &tag)
        default:
            return Self.notSupported
        }
    }

    /// An ACR122U LED/buzzer pseudo-APDU: `FF 00 40` LEDs and buzzer, `FF 00 41` LEDs,
    /// `FF 00 42` buzzer, `FF 00 43` LED control, `FF 00 52` the detection beep on or off.
    static func isPeripheralCommand(_ apdu: [UInt8]) -> Bool {
        apdu.count >= 5 && apdu[0] == 0xFF && apdu[1] == 0x00 && [0x40, 0x41, 0x42, 0x43, 0x52].contains(apdu[2])
    }

    /// A FeliCa frame through ACS's pass-through `FF 00 00 00 Lc <frame>` (length
    /// byte first): the card's response frame, or the failure status when it
    /// stays silent. Polling (`06 00 SC SC RC TSN`) is answered from the tag's
    /// activation, as the PN532 simulator answers it, when the system code matches.
    private static func passThrough(_ apdu: [UInt8], tag: inout any SimulatedTag) -> [UInt8] {
        guard apdu.count >= 6, apdu[3] == 0x00, apdu.count == 5 + Int(apdu[4]) else { return wrongLength }
        let frame = Array(apdu[5...])
        guard frame.count == 6, frame[1] == 0x00 else { return (try? tag.exchange(frame)).map { $0 + ok } ?? failed }
        guard let felica = tag.activation.felica,
            zip(frame[2...3], felica.systemCode).allSatisfy({ $0 == 0xFF || $0 == $1 })
        else { return failed }
        let body = [0x01] + tag.activation.uid + felica.pmm + (frame[4] == 0x01 ? felica.systemCode : [])
        return [UInt8(1 + body.count)] + body + ok
    }

    /// LOAD KEYS `FF 82 00 <slot> 06 <key>`: a key into a volatile slot.
    private mutating func loadKey(_ apdu: [UInt8]) -> [UInt8] {
        guard apdu.count == 11, apdu[4] == 6 else { return Self.wrongLength }
        guard Int(apdu[3]) < keys.count else { return Self.keyNumberInvalid }
        keys[Int(apdu[3])] = Array(apdu[5...])
        return Self.ok
    }

    /// GENERAL AUTHENTICATE `FF 86 00 00 05 01 00 <block> <60|61> <slot>`: the
    /// slot's key as key A or B for the block's sector, through the tag's own
    /// authentication (which refuses a wrong key as the card does).
    private func authenticate(_ apdu: [UInt8], tag: inout any SimulatedTag) -> [UInt8] {
        guard apdu.count == 10, apdu[4] == 5, apdu[5] == 0x01, apdu[6] == 0x00 else { return Self.wrongLength }
        guard [0x60, 0x61].contains(apdu[8]), Int(apdu[9]) < keys.count, let key = keys[Int(apdu[9])] else { return Self.keyNumberInvalid }
        let uid = Array(tag.activation.uid.suffix(4))
        return (try? tag.exchange([apdu[8], apdu[7]] + key + uid)) != nil ? Self.ok : Self.failed
    }

    /// READ BINARY `FF B0 00 <address> <Le>`: Le bytes (16 when 0) from `address` on.
    private static func readBinary(_ apdu: [UInt8], _ addressing: StorageAddressing, tag: inout any SimulatedTag) -> [UInt8] {
        let length = apdu.count > 4 && apdu[4] != 0 ? Int(apdu[4]) : 16
        var data: [UInt8] = []
        while data.count < length {
            let address = UInt8(truncatingIfNeeded: Int(apdu[3]) + data.count / addressing.unit)
            guard let read = try? tag.exchange([0x30, address]), !read.isEmpty else { return failed }
            data += read
        }
        return Array(data.prefix(length)) + ok
    }

    /// UPDATE BINARY `FF D6 00 <address> <Lc> <data>`: whole units from `address` on.
    private static func updateBinary(_ apdu: [UInt8], _ addressing: StorageAddressing, tag: inout any SimulatedTag) -> [UInt8] {
        guard apdu.count >= 5, Int(apdu[4]) % addressing.unit == 0, apdu.count == 5 + Int(apdu[4]) else { return wrongLength }
        let data = Array(apdu[5...])
        for index in stride(from: 0, to: data.count, by: addressing.unit) {
            let address = UInt8(truncatingIfNeeded: Int(apdu[3]) + index / addressing.unit)
            guard (try? tag.exchange([addressing.write, address] + data[index..<(index + addressing.unit)])) != nil else { return failed }
        }
        return ok
    }
}

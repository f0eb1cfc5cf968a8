/// CRC_A of ISO/IEC 14443-3 (preset 0x6363, reflected polynomial 0x8408),
/// appended least significant byte first. The chip adds and checks it unless
/// the host turned CRC handling off (CIU_TxMode/RxMode bit 7).
enum ISO14443CRC {
    static func crcA(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var crc: UInt16 = 0x6363
        for byte in bytes {
            var value = byte ^ UInt8(crc & 0xFF)
            value ^= value << 4
            crc = (crc >> 8) ^ (UInt16(value) << 8) ^ (UInt16(value) << 3) ^ (UInt16(value) >> 4)
        }
        return [UInt8(crc & 0xFF), UInt8(crc >> 8)]
    }

    /// `frame` without its two CRC bytes, or nil when they do not match.
    static func strip(_ frame: [UInt8]) -> [UInt8]? {
        guard frame.count >= 3 else { return nil }
        let body = Array(frame.dropLast(2))
        return crcA(body) == Array(frame.suffix(2)) ? body : nil
    }
}

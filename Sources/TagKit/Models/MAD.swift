/// Facts of the MIFARE Application Directory and the NFC Forum's use of it on
/// MIFARE Classic, shared by the tag model and the driver.
public enum MAD {
    /// Key A of the MAD sector, public by definition.
    public static let publicKey: [UInt8] = [0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5]
    /// Key A of NFC Forum sectors, public by definition.
    public static let ndefKey: [UInt8] = [0xD3, 0xF7, 0xD3, 0xF7, 0xD3, 0xF7]
    /// The NDEF application ID 0x03E1 as stored in a MAD entry (least significant byte first).
    public static let ndefAID: [UInt8] = [0xE1, 0x03]
    /// Data bytes of one sector of a 1K card (three blocks).
    public static let ndefSectorBytes = 48

    /// The MAD's CRC-8 (polynomial 0x1D, preset 0xC7) over the info byte and the AIDs.
    public static func crc(_ bytes: [UInt8]) -> UInt8 {
        var crc: UInt8 = 0xC7
        for byte in bytes {
            crc ^= byte
            for _ in 0..<8 {
                crc = crc & 0x80 != 0 ? (crc << 1) ^ 0x1D : crc << 1
            }
        }
        return crc
    }
}

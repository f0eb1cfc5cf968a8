import TagCrypto

/// The encrypted PICC data of a SUN message (AN12196 §3.4.2): one AES block under
/// K_SDMMetaRead holding the tag byte `C7` (UID of 7 bytes and read counter
/// mirrored), the UID, the counter LSB first, and padding the tag makes random.
public enum PICCData {
    /// The tag byte: UID mirrored, counter mirrored, UID length 7.
    static let tag: UInt8 = 0xC7

    /// The 16 bytes a tag mirrors for `uid` (7 bytes) and `counter`, with 5 bytes of `padding`.
    public static func encrypt(uid: [UInt8], counter: Int, metaReadKey: [UInt8], padding: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard let cipher = AES128(key: metaReadKey) else { throw .badKey(metaReadKey.count) }
        return try cipher.encrypt([tag] + uid + SUNSession.littleEndian(counter) + padding)
    }

    /// The UID and counter in `data`; nil unless `metaReadKey` deciphers it to the tag byte `C7`.
    public static func decrypt(_ data: [UInt8], metaReadKey: [UInt8]) -> (uid: [UInt8], counter: Int)? {
        guard let cipher = AES128(key: metaReadKey), let plain = try? cipher.decrypt(data), plain.count == 16, plain[0] == tag else { return nil }
        return (Array(plain[1...7]), Int(plain[8]) | Int(plain[9]) << 8 | Int(plain[10]) << 16)
    }
}

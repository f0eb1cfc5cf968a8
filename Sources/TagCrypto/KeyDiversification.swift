/// AES-128 key diversification as NXP's AN10922 (§2.2) describes it: the
/// per-card key is the CMAC, under the master key, of the constant `01`
/// followed by the diversification input M (1…31 bytes; commonly UID ‖ AID ‖
/// system identifier), always padded to two blocks (`80 00…`; the last block
/// XORed with the CMAC subkey K2, or K1 when M fills it). Where that padding is
/// CMAC's own (M of 16 bytes or more) it is libcrypto's CMAC as it is; for a
/// shorter M, K2 comes from libcrypto's CMAC of the empty message, deciphered.
public enum KeyDiversification {
    /// The diversification input's longest length for AES-128 (two blocks less the constant).
    public static let maximumInputBytes = 31

    /// The diversified 16-byte key for `input` under the 16-byte `master` key.
    public static func aes128(master: [UInt8], input: [UInt8]) throws(DiversificationError) -> [UInt8] {
        guard (1...maximumInputBytes).contains(input.count) else { throw .inputLength(input.count) }
        guard let cipher = AES128(key: master) else { throw .crypto(.badKey(master.count)) }
        let message = [0x01] + input
        do throws(CryptoError) {
            if message.count > 16 { return try CMAC.aes128(key: master, message) }
            // CMAC(K, "") = E(K, (80 00…) ⊕ K2): deciphering it gives K2.
            var k2 = try cipher.decrypt(try CMAC.aes128(key: master, []))
            k2[0] ^= 0x80
            let padded = message + [0x80] + [UInt8](repeating: 0, count: 31 - message.count)
            let last = zip(padded[16...], k2).map { $0 ^ $1 }
            return Array(try cipher.encrypt(Array(padded[..<16]) + last).suffix(16))
        } catch {
            throw .crypto(error)
        }
    }
}

/// Why a key could not be diversified.
public enum DiversificationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The diversification input is empty or longer than 31 bytes.
    case inputLength(Int)
    /// libcrypto refused, or the master key is not 16 bytes.
    case crypto(CryptoError)

    public var description: String {
        switch self {
        case .inputLength(let count): "an AN10922 diversification input is 1 to 31 bytes, not \(count)"
        case .crypto(let error): "\(error)"
        }
    }
}

import TagCrypto

/// The session keys of one SUN read (NXP AN12196 §3.3, NT4H2421Gx §9.3.9): derived by CMAC under
/// K_SDMFileRead from the UID and the read counter, with the SDMMAC they make. The tag (the
/// simulator's model) and `SUNVerifier` compute them with this one type.
public struct SUNSession: Sendable {
    /// SesSDMFileReadMACKey.
    public let macKey: [UInt8]
    /// SesSDMFileReadENCKey.
    public let encryptionKey: [UInt8]
    let counter: Int

    /// The session keys of the read that mirrored `uid` (7 bytes) and `counter` (24 bits).
    public init(fileReadKey: [UInt8], uid: [UInt8], counter: Int) throws(CryptoError) {
        macKey = try CMAC.aes128(key: fileReadKey, Self.sessionVector(0x3C, 0xC3, uid: uid, counter: counter))
        encryptionKey = try CMAC.aes128(key: fileReadKey, Self.sessionVector(0xC3, 0x3C, uid: uid, counter: counter))
        self.counter = counter
    }

    /// The SDMMAC (8 bytes): the CMAC over the URL's MAC input, its odd-numbered bytes.
    public func mac(over input: [UInt8]) throws(CryptoError) -> [UInt8] {
        let mac = try CMAC.aes128(key: macKey, input)
        return stride(from: 1, to: 16, by: 2).map { mac[$0] }
    }

    /// Mirrored file data deciphered (CBC, IV = E(SesENC, counter LSB first ‖ zeros)).
    public func decryptFileData(_ data: [UInt8]) throws(CryptoError) -> [UInt8] {
        let cipher = AES128(key: encryptionKey)!
        return try cipher.decrypt(data, iv: try cipher.encrypt(Self.littleEndian(counter) + [UInt8](repeating: 0, count: 13)))
    }

    /// SV1 (`C3 3C`, encryption) or SV2 (`3C C3`, MAC): label, counter `00 01`, length `00 80`, UID, counter (LSB first).
    static func sessionVector(_ first: UInt8, _ second: UInt8, uid: [UInt8], counter: Int) -> [UInt8] {
        [first, second, 0x00, 0x01, 0x00, 0x80] + uid + littleEndian(counter)
    }

    static func littleEndian(_ counter: Int) -> [UInt8] {
        [UInt8(counter & 0xFF), UInt8(counter >> 8 & 0xFF), UInt8(counter >> 16 & 0xFF)]
    }
}

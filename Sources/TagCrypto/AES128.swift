import CCrypto

/// AES-128 as NTAG 424 DNA uses it, from libcrypto: single blocks (ECB) and CBC
/// without padding. Keys are 16 bytes; data is a whole number of 16-byte blocks.
public struct AES128: Sendable {
    /// The 16-byte key.
    public let key: [UInt8]

    /// A cipher with `key`; nil unless the key is 16 bytes.
    public init?(key: [UInt8]) {
        guard key.count == 16 else { return nil }
        self.key = key
    }

    /// `data` (whole blocks) encrypted in CBC mode from `iv` (ECB when there is one block and the IV is zero).
    public func encrypt(_ data: [UInt8], iv: [UInt8] = [UInt8](repeating: 0, count: 16)) throws(CryptoError) -> [UInt8] {
        try run(data, iv: iv, encrypting: true)
    }

    /// `data` (whole blocks) decrypted in CBC mode from `iv`.
    public func decrypt(_ data: [UInt8], iv: [UInt8] = [UInt8](repeating: 0, count: 16)) throws(CryptoError) -> [UInt8] {
        try run(data, iv: iv, encrypting: false)
    }

    private func run(_ data: [UInt8], iv: [UInt8], encrypting: Bool) throws(CryptoError) -> [UInt8] {
        guard !data.isEmpty, data.count % 16 == 0 else { throw .notWholeBlocks(data.count) }
        guard iv.count == 16 else { throw .badIV(iv.count) }
        guard let context = EVP_CIPHER_CTX_new() else { throw .library("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(context) }
        var output = [UInt8](repeating: 0, count: data.count + 16)
        var written: Int32 = 0
        var finished: Int32 = 0
        let ok = key.withUnsafeBufferPointer { key in
            iv.withUnsafeBufferPointer { iv in
                output.withUnsafeMutableBufferPointer { output in
                    data.withUnsafeBufferPointer { data in
                        EVP_CipherInit_ex(context, EVP_aes_128_cbc(), nil, key.baseAddress, iv.baseAddress, encrypting ? 1 : 0) == 1
                            && EVP_CIPHER_CTX_set_padding(context, 0) == 1
                            && EVP_CipherUpdate(context, output.baseAddress, &written, data.baseAddress, Int32(data.count)) == 1
                            && EVP_CipherFinal_ex(context, output.baseAddress! + Int(written), &finished) == 1
                    }
                }
            }
        }
        guard ok else { throw .library("AES-128-CBC") }
        return Array(output.prefix(Int(written + finished)))
    }
}

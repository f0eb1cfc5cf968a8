import CCrypto

/// AES-128 CMAC (NIST SP 800-38B, RFC 4493) from libcrypto's EVP_MAC: the MAC
/// NTAG 424 DNA derives its session keys and SUN MACs with.
public enum CMAC {
    /// The 16-byte AES-CMAC of `message` under the 16-byte `key`.
    public static func aes128(key: [UInt8], _ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard key.count == 16 else { throw .badKey(key.count) }
        guard let algorithm = EVP_MAC_fetch(nil, "CMAC", nil) else { throw .library("EVP_MAC_fetch(CMAC)") }
        defer { EVP_MAC_free(algorithm) }
        guard let context = EVP_MAC_CTX_new(algorithm) else { throw .library("EVP_MAC_CTX_new") }
        defer { EVP_MAC_CTX_free(context) }
        var output = [UInt8](repeating: 0, count: 16)
        var length = 0
        let ok = "AES-128-CBC".withCString { cipher in
            "cipher".withCString { name in
                var parameters = [
                    OSSL_PARAM_construct_utf8_string(name, UnsafeMutablePointer(mutating: cipher), 0),
                    OSSL_PARAM_construct_end(),
                ]
                return key.withUnsafeBufferPointer { key in
                    message.withUnsafeBufferPointer { message in
                        output.withUnsafeMutableBufferPointer { output in
                            EVP_MAC_init(context, key.baseAddress, key.count, &parameters) == 1
                                && EVP_MAC_update(context, message.baseAddress, message.count) == 1
                                && EVP_MAC_final(context, output.baseAddress, &length, output.count) == 1
                        }
                    }
                }
            }
        }
        guard ok, length == 16 else { throw .library("AES-CMAC") }
        return output
    }
}

import CCrypto

/// HMAC-SHA256 from libcrypto: how webhook bodies and the events a node publishes are signed.
public enum HMACSHA256 {
    /// The 32-byte HMAC-SHA256 of `message` under `key`; nil only when libcrypto fails (out of memory).
    public static func digest(_ message: [UInt8], key: [UInt8]) -> [UInt8]? {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let result = key.withUnsafeBytes { key in
            message.withUnsafeBytes { message in
                HMAC(EVP_sha256(), key.baseAddress, Int32(key.count), message.baseAddress, message.count, &output, &length)
            }
        }
        return result == nil ? nil : Array(output.prefix(Int(length)))
    }
}

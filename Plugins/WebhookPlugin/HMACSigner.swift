import CCrypto

/// Signs request bodies with HMAC-SHA256 (libcrypto), the way GitHub and most
/// webhook receivers check them: header value `sha256=<lowercase hex>`.
struct HMACSigner: Sendable {
    /// The shared secret, as read from `secret_file`.
    let key: [UInt8]
    /// The header the signature travels in.
    let header: String

    /// The raw 32-byte HMAC-SHA256 of `message`, or nil if libcrypto failed.
    func digest(_ message: [UInt8]) -> [UInt8]? {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let result = key.withUnsafeBytes { key in
            message.withUnsafeBufferPointer { message in
                HMAC(EVP_sha256(), key.baseAddress, Int32(key.count), message.baseAddress, message.count, &output, &length)
            }
        }
        return result == nil ? nil : Array(output.prefix(Int(length)))
    }

    /// `sha256=<hex>` for `body`.
    func headerValue(for body: [UInt8]) -> String? {
        digest(body).map { "sha256=" + $0.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() }
    }
}

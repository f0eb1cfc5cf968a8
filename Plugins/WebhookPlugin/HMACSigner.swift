import TagCrypto

/// Signs request bodies with HMAC-SHA256 (libcrypto), the way GitHub and most
/// webhook receivers check them: header value `sha256=<lowercase hex>`.
struct HMACSigner: Sendable {
    /// The shared secret, as read from `secret_file`.
    let key: [UInt8]
    /// The header the signature travels in.
    let header: String

    /// The raw 32-byte HMAC-SHA256 of `message`, or nil if libcrypto failed.
    func digest(_ message: [UInt8]) -> [UInt8]? { HMACSHA256.digest(message, key: key) }

    /// `sha256=<hex>` for `body`.
    func headerValue(for body: [UInt8]) -> String? {
        digest(body).map { "sha256=" + $0.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() }
    }
}

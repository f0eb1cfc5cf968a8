import CCrypto

/// Comparisons of secrets that take the same time wherever the first difference is.
public enum ConstantTime {
    /// True when `a` and `b` hold the same bytes (libcrypto's CRYPTO_memcmp; lengths are not secret).
    public static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return a.withUnsafeBytes { a in b.withUnsafeBytes { b in CRYPTO_memcmp(a.baseAddress, b.baseAddress, a.count) == 0 } }
    }
}

/// Why a libcrypto operation could not be done.
public enum CryptoError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A key of the wrong length (AES-128 takes 16 bytes).
    case badKey(Int)
    /// An IV of the wrong length (16 bytes).
    case badIV(Int)
    /// Data that is not a whole number of 16-byte blocks.
    case notWholeBlocks(Int)
    /// libcrypto refused the named operation.
    case library(String)

    public var description: String {
        switch self {
        case .badKey(let count): "an AES-128 key is 16 bytes, not \(count)"
        case .badIV(let count): "an AES IV is 16 bytes, not \(count)"
        case .notWholeBlocks(let count): "AES data must be whole 16-byte blocks, not \(count) bytes"
        case .library(let operation): "libcrypto failed in \(operation)"
        }
    }
}

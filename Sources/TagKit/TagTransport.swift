/// The one thing a tag driver needs from a reader: send bytes to the selected tag
/// and get its answer. libnfc implements it for real readers (TagReader), the
/// in-memory tag models implement it for tests, so every driver runs unchanged on both.
/// The reader adds and checks CRCs and parity; commands and answers are the tag's
/// own bytes (e.g. `30 04` → 16 bytes for a Type 2 READ of page 4).
public protocol TagTransport {
    /// Sends `command` to the tag and returns its answer. Throws `.tagRemoved`
    /// when the tag left the field, never traps and never blocks without a timeout.
    func transceive(_ command: [UInt8]) throws(TagTransportError) -> [UInt8]
}

/// Why an exchange with a tag failed; says whether retrying can help.
public enum TagTransportError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The tag did not answer in time — most often it left the field.
    case tagRemoved
    /// The tag answered with a NAK or an error status (e.g. a Type 2 `0x0`/`0x1` NAK, ISO status word ≠ 9000).
    case refused(status: [UInt8])
    /// The reader itself failed (USB unplugged, pty closed); the device must be reopened.
    case readerFailed(String)

    public var description: String {
        switch self {
        case .tagRemoved: return "tag removed during read"
        case .refused(let status): return "tag refused the command (status \(status.map { String($0, radix: 16) }.joined(separator: " ")))"
        case .readerFailed(let reason): return "reader failed: \(reason)"
        }
    }
}

import TagReader
import CNFC

/// A libnfc call failed. `code` is libnfc's error code (`NFC_EIO`, `NFC_ETIMEOUT`, …);
/// `isDeviceLost` says whether the device must be reopened or the operation may be
/// retried in place.
public struct NFCError: Error, Sendable, Equatable, CustomStringConvertible {
    public let operation: String
    public let code: Int32

    public init(_ operation: String, code: Int32) {
        self.operation = operation
        self.code = code
    }

    /// The device is gone or stuck (I/O error, no such device, command aborted):
    /// close it and open it again. Everything else is a protocol error worth a retry.
    public var isDeviceLost: Bool {
        code == NFC_EIO || code == NFC_ENOTSUCHDEV || code == NFC_EOPABORTED
    }

    /// libnfc's own wording for the code.
    public var reason: String {
        switch code {
        case NFC_EIO: return "input/output error (device unplugged or closed?)"
        case NFC_EINVARG: return "invalid argument"
        case NFC_EDEVNOTSUPP: return "operation not supported by the device"
        case NFC_ENOTSUCHDEV: return "no such device"
        case NFC_EOVFLOW: return "buffer overflow"
        case NFC_ETIMEOUT: return "timeout"
        case NFC_EOPABORTED: return "operation aborted"
        case NFC_ENOTIMPL: return "not implemented"
        case NFC_ETGRELEASED: return "target released"
        case NFC_ERFTRANS: return "RF transmission error"
        case NFC_EMFCAUTHFAIL: return "MIFARE Classic authentication failed"
        case NFC_ESOFT: return "software error"
        case NFC_ECHIP: return "chip error"
        default: return "libnfc error \(code)"
        }
    }

    public var description: String { "\(operation): \(reason)" }
}

import Glibc
import TagCore

/// A `device:` that names a PC/SC reader: `pcsc:auto` (the first reader pcscd
/// has) or `pcsc:<glob>` matched against pcscd's reader names
/// (`pcsc:ACS ACR1252*`, `pcsc:*Omnikey*`).
public struct PCSCDevice: Sendable, Equatable {
    static let prefix = ReaderConfig.pcscPrefix

    /// The glob, nil for `auto`.
    public let pattern: String?

    /// Nil when `device` is not a PC/SC device (a libnfc connstring).
    public init?(_ device: String) {
        guard device.hasPrefix(Self.prefix) else { return nil }
        let rest = String(device.dropFirst(Self.prefix.count))
        pattern = rest.isEmpty || rest == "auto" ? nil : rest
    }

    /// Whether `device` names a PC/SC reader.
    public static func names(_ device: String) -> Bool { device.hasPrefix(prefix) }

    /// The first of `readers` this device means.
    func pick(from readers: [String]) -> String? {
        guard let pattern else { return readers.first }
        return readers.first { fnmatch(pattern, $0, 0) == 0 }
    }
}

extension PCSCDevice {
    /// The readers pcscd has, for `tagrouter devices`: their names, or why pcscd could not be asked.
    public static func listReaders() -> Result<[String], PCSCError> {
        Result { () throws(PCSCError) -> [String] in try PCSCContext().readers() }
    }
}

import Glibc
import TagCore
import TagReader

/// A `device:` that names a PC/SC reader: `pcsc:auto` (the first reader pcscd
/// has) or `pcsc:<glob>` matched against pcscd's reader names
/// (`pcsc:ACS ACR1252*`, `pcsc:*Omnikey*`).
public struct PCSCDevice: Sendable, Equatable {
    /// What starts a `device:` of a PC/SC reader, without its colon.
    static let scheme = "pcsc"
    static let prefix = scheme + ":"
    /// `pcsc:auto`: the first reader pcscd has.
    static let auto = PCSCDevice(pattern: nil)

    /// The glob, nil for `auto`.
    public let pattern: String?

    private init(pattern: String?) { self.pattern = pattern }

    /// Nil when `device` is not a PC/SC device.
    public init?(_ device: String) {
        guard device.hasPrefix(Self.prefix) else { return nil }
        let rest = String(device.dropFirst(Self.prefix.count))
        pattern = rest.isEmpty || rest == "auto" ? nil : rest
    }

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

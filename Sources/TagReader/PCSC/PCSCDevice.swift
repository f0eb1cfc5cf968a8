import Glibc
import TagCore

/// A `device:` that names a PC/SC reader: `pcsc:auto` (the first reader pcscd
/// has), `pcsc:<glob>` matched against pcscd's reader names
/// (`pcsc:ACS ACR1252*`, `pcsc:*Omnikey*`), or `pcsc:usb-port:<port>`, the
/// reader plugged into that USB port (`pcsc:usb-port:1-1.2`, see `USBPorts`).
public struct PCSCDevice: Sendable, Equatable {
    static let prefix = ReaderConfig.pcscPrefix

    /// The glob, nil for `auto` and a port.
    public let pattern: String?
    /// The USB port, for `pcsc:usb-port:<port>`.
    public let port: String?

    /// Nil when `device` is not a PC/SC device (a libnfc connstring).
    public init?(_ device: String) {
        guard device.hasPrefix(Self.prefix) else { return nil }
        let rest = String(device.dropFirst(Self.prefix.count))
        port = USBPortDevice(rest)?.port
        pattern = rest.isEmpty || rest == "auto" || port != nil ? nil : rest
    }

    /// Whether `device` names a PC/SC reader.
    public static func names(_ device: String) -> Bool { device.hasPrefix(prefix) }

    /// The first of `readers` this device means (for a port: the one whose USB device sits there).
    func pick(from readers: [String], in context: PCSCContext) -> String? {
        if let port { return readers.first { context.usbPort(of: $0, ports: USBPorts()) == port } }
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

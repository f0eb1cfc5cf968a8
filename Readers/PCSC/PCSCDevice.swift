import Glibc
import TagCore
import TagReader

/// A `device:` that names a PC/SC reader: `pcsc:auto` (the first reader pcscd
/// has), `pcsc:<glob>` matched against pcscd's reader names
/// (`pcsc:ACS ACR1252*`, `pcsc:*Omnikey*`), or `pcsc:usb-port:<port>`, the
/// reader plugged into that USB port (`pcsc:usb-port:1-1.2`, see `USBPorts`).
public struct PCSCDevice: Sendable, Equatable {
    /// What starts a `device:` of a PC/SC reader, without its colon.
    static let scheme = "pcsc"
    static let prefix = scheme + ":"
    /// `pcsc:auto`: the first reader pcscd has.
    static let auto = PCSCDevice(pattern: nil)

    /// The glob, nil for `auto` and a port.
    public let pattern: String?
    /// The USB port, for `pcsc:usb-port:<port>`.
    public let port: String?

    private init(pattern: String?) {
        self.pattern = pattern
        port = nil
    }

    /// Nil when `device` is not a PC/SC device.
    public init?(_ device: String) {
        guard device.hasPrefix(Self.prefix) else { return nil }
        let rest = String(device.dropFirst(Self.prefix.count))
        if case .success(let port)? = USBPortName.parse(rest) { self.port = port } else { port = nil }
        pattern = rest.isEmpty || rest == "auto" || port != nil ? nil : rest
    }

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

import TagCore
import TagReader

/// A `device:` that names a libnfc reader by the USB port it is plugged into,
/// `usb-port:<port>` (`usb-port:1-1.2`, the sysfs name `tagrouter devices`
/// prints): two identical readers keep their names whichever was plugged in
/// first, and across reboots. What is in the port now is opened: a USB-serial
/// board's tty through `pn532_uart`, else the USB reader libnfc lists at that
/// bus address (`pn53x_usb:001:005`, `acr122_usb:…`). A PC/SC reader by port is
/// `pcsc:usb-port:<port>` (`PCSCDevice`).
public struct USBPortDevice: Sendable, Equatable {
    /// The sysfs port name.
    public let port: String

    /// Nil when `device` is not `usb-port:` and a valid port name.
    public init?(_ device: String) {
        guard case .success(let port)? = USBPortName.parse(device) else { return nil }
        self.port = port
    }

    /// The libnfc connstring of what is plugged into the port now, among `listed`
    /// (libnfc's own list of USB readers); nil when the port is empty or holds no reader libnfc knows.
    func connstring(ports: USBPorts, listed: [String]) -> String? {
        if let serial = ports.serialDevice(at: port) { return "pn532_uart:" + serial }
        guard ports.device(at: port) != nil else { return nil }
        return listed.first { !$0.contains(":/") && ports.port(ofConnstring: $0) == port }
    }
}

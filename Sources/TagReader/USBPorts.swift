import FoundationEssentials
import Glibc
import TagCore

/// Physical USB ports as Linux's sysfs names them (`1-1.2`: bus 1, root hub port 1,
/// then port 2 of the hub there): the name stays with the socket, whatever the
/// device's address (it changes at every plug-in) or the order readers were found.
/// Reads `/sys/bus/usb/devices` only — listing folders and reading `busnum`/`devnum`;
/// a serial port is never opened here.
///
/// `TAGROUTER_TEST_SYSTEM_ROOT`, for tests only, puts a made-up `sys/` and `dev/`
/// in place of the machine's (`<root>/sys/bus/usb/devices/…`, `<root>/dev/ttyUSB0`).
public struct USBPorts: Sendable {
    /// Prefixed to `/sys` and `/dev`: empty on a real machine.
    let root: String

    /// The environment variable that moves `/sys` and `/dev` (tests only).
    public static let testRootVariable = "TAGROUTER_TEST_SYSTEM_ROOT"

    public init(root: String? = ProcessInfo.processInfo.environment[USBPorts.testRootVariable]) {
        self.root = root.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 } ?? ""
    }

    private var devices: String { root + "/sys/bus/usb/devices" }

    /// The bus number and address of the device plugged into `port`, nil when the port is empty.
    public func device(at port: String) -> (bus: Int, address: Int)? {
        guard USBPortName.isValid(port), let bus = number(port, "busnum"), let address = number(port, "devnum") else { return nil }
        return (bus, address)
    }

    /// The port of the device with this bus number and address (what libnfc's
    /// `pn53x_usb:001:005` and CCID's channel id tell), nil when there is none.
    public func port(bus: Int, address: Int) -> String? {
        entries().first { USBPortName.isValid($0) && number($0, "busnum") == bus && number($0, "devnum") == address }
    }

    /// The serial device (`/dev/ttyUSB0`, `/dev/ttyACM0`) of a USB-serial adapter in `port`:
    /// the tty under one of its interfaces (`1-1.2:1.0/ttyUSB0`, `1-1.2:1.0/tty/ttyACM0`).
    public func serialDevice(at port: String) -> String? {
        guard USBPortName.isValid(port) else { return nil }
        let interfaces = entries().filter { $0.hasPrefix(port + ":") }.sorted()
        return interfaces.lazy.compactMap { tty(under: $0) }.first.map { root + "/dev/" + $0 }
    }

    /// The port of the adapter behind a serial device path (a symlink such as
    /// `/dev/serial/by-path/…` or the test root's is followed to its tty's name).
    public func port(ofSerialDevice path: String) -> String? {
        let name = Self.resolvedName(path)
        guard name.hasPrefix("tty") else { return nil }
        return entries().first { $0.contains(":") && tty(under: $0) == name }.map { String($0.prefix { $0 != ":" }) }
    }

    /// The port of a libnfc connstring's device: `driver:BBB:DDD` for USB readers
    /// (bus and address, as libusb names them), `driver:/dev/tty…[:speed]` for serial ones.
    public func port(ofConnstring connstring: String) -> String? {
        let parts = connstring.split(separator: ":", maxSplits: 2).map(String.init)
        guard parts.count >= 2 else { return nil }
        if parts[1].hasPrefix("/") { return port(ofSerialDevice: parts[1]) }
        guard parts.count == 3, let bus = Int(parts[1]), let address = Int(parts[2]) else { return nil }
        return port(bus: bus, address: address)
    }

    /// The port of a PC/SC reader from its `SCARD_ATTR_CHANNEL_ID` (`0xDDDDCCCC`): for a
    /// USB reader (DDDD = `0x0020`) CCID puts the bus number in bits 8–15 of CCCC and
    /// the address in bits 0–7 (pcsc-lite's CCID driver, `ifdhandler.c`).
    public func port(channelID: UInt32) -> String? {
        guard channelID >> 16 == 0x0020 else { return nil }
        return port(bus: Int(channelID >> 8 & 0xFF), address: Int(channelID & 0xFF))
    }

    /// Every USB-serial adapter's port and serial device, for `tagrouter devices` (listed, never opened).
    public func serialAdapters() -> [(port: String, device: String)] {
        entries().filter { USBPortName.isValid($0) }.sorted().compactMap { port in serialDevice(at: port).map { (port, $0) } }
    }

    /// The line `tagrouter devices` prints under a reader in a USB port: the port, and the `device:` naming it there.
    public static func line(port: String, device: String) -> String {
        "  USB port \(port)\tdevice: \"\(device)\""
    }

    // MARK: - sysfs

    private func entries() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: devices)) ?? []
    }

    /// A small decimal file of a device folder (`busnum`, `devnum`).
    private func number(_ entry: String, _ file: String) -> Int? {
        guard let data = FileManager.default.contents(atPath: devices + "/" + entry + "/" + file), data.count < 16 else { return nil }
        return Int(String(decoding: data.prefix { $0 != 0x0A }, as: UTF8.self))
    }

    /// The tty an interface folder holds: `ttyUSB0` (usb-serial) or `tty/ttyACM0` (cdc-acm).
    private func tty(under interface: String) -> String? {
        let folder = devices + "/" + interface
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
        if let name = names.first(where: { $0.hasPrefix("tty") && $0 != "tty" }) { return name }
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder + "/tty")) ?? []).sorted().first { $0.hasPrefix("tty") }
    }

    /// The tty name `path` stands for: its last component when that is a tty's
    /// name, else the last component of what its symlinks lead to.
    private static func resolvedName(_ path: String) -> String {
        let last = String(path.split(separator: "/").last ?? "")
        if last.hasPrefix("tty") { return last }
        guard let resolved = realpath(path, nil) else { return last }
        defer { free(resolved) }
        return String(String(cString: resolved).split(separator: "/").last ?? "")
    }
}

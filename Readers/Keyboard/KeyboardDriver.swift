import FoundationEssentials
import Glibc
import TagCore
import TagKit
import TagReader
import TagRouter

/// Keyboard-wedge (USB HID) readers: the 125 kHz EM4100 and cheap 13.56 MHz
/// readers that type a card's number and press Enter, read from their Linux
/// input device (`keyboard:/dev/input/by-id/usb-…-event-kbd`), grabbed so no
/// keystroke reaches anything else (docs/reader.md "Keyboard-wedge readers").
public enum KeyboardDriver: ReaderDriver {
    public static let scheme: String? = "keyboard"
    public static let title = "keyboard-wedge"
    public static let deviceHelp =
        "a keyboard-wedge (USB HID) reader's input device: `keyboard:/dev/input/by-id/<…>-event-kbd`"
    public static let options = KeyboardSettings.options
    /// Where udev links input devices by id.
    static let byID = "dev/input/by-id"

    /// Reads the keyboard settings; what such a reader cannot do is a warning.
    public static func load(_ value: ConfigValue, into reader: inout ReaderConfig, _ errors: inout ConfigErrors) {
        reader.driverSettings = DriverSettings(KeyboardSettings(value))
        let unused: [(key: String, why: String)] = [
            ("polling", "the kernel hands tagrouter each key as it comes"),
            ("ignore_on_connect", "a keyboard reader shows no card lying on it"),
            ("beep_on_detect", "a keyboard reader takes no commands"),
        ]
        for (key, why) in unused where value.has(key) {
            errors.append(ConfigError(
                mark: value.node[key]?.mark ?? value.mark, path: "\(value.path).\(key)",
                message: "changes nothing on a keyboard-wedge reader: \(why) (docs/reader.md)", isWarning: true))
        }
    }

    public static func reader(
        _ config: ReaderConfig, present: [TagEvent], jobs: TagJobQueue?,
        emit: @escaping @Sendable (TagEvent) -> Void, finished: @escaping @Sendable () -> Void
    ) -> any ReaderThread {
        KeyboardReader(config: config, path: path(of: config.device), present: present, jobs: jobs, emit: emit, finished: finished)
    }

    /// The input device a `keyboard:` device names.
    static func path(of device: String) -> String { String(device.dropFirst((scheme ?? "").count + 1)) }

    /// Every keyboard input device by id (a keyboard-wedge reader cannot be told from a keyboard), and `extra` ones opened and grabbed once.
    public static func listDevices(extra: [String]) -> DeviceListing { listDevices(extra: extra, root: "/") }

    static func listDevices(extra: [String], root: String) -> DeviceListing {
        let folder = root + byID
        let links = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix("-event-kbd") }.sorted()
        var lines = ["keyboard input devices: \(links.count) in /\(byID)"]
            + links.map { "keyboard:/\(byID)/\($0)\tkeyboard input (a keyboard, or a keyboard-wedge reader)" }
        var usable = 0
        for device in extra {
            switch probe(path(of: device)) {
            case nil:
                lines.append("\(device)\topens and grabs")
                usable += 1
            case let failure?:
                lines.append("\(device)\t\(failure)")
            }
        }
        return DeviceListing(lines: lines, found: extra.count, usable: usable)
    }

    /// Opens and grabs `path` once (and lets go); nil when that worked, else why not.
    static func probe(_ path: String) -> InputDevice.Failure? {
        do {
            _ = try InputDevice(path: path)
            return nil
        } catch {
            return error
        }
    }

    /// For each configured keyboard reader: whether the account may read its device, and whether another program grabbed it.
    public static func doctorChecks(_ machine: DoctorMachine) -> [DoctorCheck] {
        machine.devices.filter(claims).flatMap { device in KeyboardDoctor(machine: machine).checks(path(of: device)) }
    }

    /// A keyboard reader reaches nothing on a tag: its number is all it gives.
    public static func reachTag<T>(
        device: String, timeout: Duration, ifBusy: ReaderConfig.BusyPolicy, _ body: (TagInfo, any NDEFTagDriver) throws -> T
    ) throws -> T {
        throw TagAccessError.failed("'\(device)' is a keyboard-wedge reader: it types a card's number and cannot read or write the tag")
    }

    /// The input node (symlinks resolved), to be read only, for the device sandbox's checks; nil when there is none.
    public static func deviceNode(_ device: String) -> DeviceNodePath? {
        let port = path(of: device)
        guard let resolved = realpath(port, nil) else { return nil }
        defer { free(resolved) }
        return DeviceNodePath(port: port, path: String(cString: resolved), access: .read)
    }

    /// Another program (a running daemon) has grabbed the device.
    public static func isHeldElsewhere(_ device: String) -> Bool { probe(path(of: device)).map { if case .grabbed = $0 { true } else { false } } ?? false }

    /// Opens and grabs the device once and says why when that fails.
    public static func opening(_ device: String) -> Result<String, DeviceUnavailable> {
        guard let failure = probe(path(of: device)) else { return .success(device) }
        return .failure(DeviceUnavailable(["could not open the reader '\(device)'", "- \(failure)"]))
    }
}

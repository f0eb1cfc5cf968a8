import TagCore
import TagKit
import TagReader
import TagRouter

/// Readers pcscd shares: ACR1252U, ACR1552U, uTrust, Omnikey, an ACR122U left to
/// pcscd. `pcsc:auto` is the first reader pcscd has, `pcsc:<glob>` the first whose
/// name matches, `pcsc:usb-port:<port>` the one in that USB port. pcscd watches
/// the slot itself (no `polling`), and readers of a known model show a tap's
/// outcome on their LEDs and buzzer (docs/feedback.md).
public enum PCSCDriver: ReaderDriver {
    public static let scheme: String? = PCSCDevice.scheme
    public static let title = "PC/SC"
    public static let deviceHelp =
        "a PC/SC reader through pcscd: `pcsc:auto` (the first), `pcsc:<name glob>` such as `pcsc:ACS ACR1252*`, "
        + "or `pcsc:usb-port:1-1.2`, the reader plugged into that USB port (its CCID driver tells which)"

    /// A `polling` here is a warning: SCardGetStatusChange returns as soon as pcscd sees a card.
    public static func load(_ value: ConfigValue, into reader: inout ReaderConfig, _ errors: inout ConfigErrors) {
        if let error = ReaderConfig.usbPortError(String(reader.device.dropFirst(PCSCDevice.prefix.count)), in: value) { errors.append(error) }
        guard value.has("polling") else { return }
        errors.append(ConfigError(
            mark: value.node["polling"]?.mark ?? value.mark, path: "\(value.path).polling",
            message: "applies to libnfc readers; pcscd watches a PC/SC reader's slot and tells tagrouter at once, so it changes nothing here (docs/reader.md)",
            isWarning: true))
    }

    public static func reader(
        _ config: ReaderConfig, present: [TagEvent], jobs: TagJobQueue?,
        emit: @escaping @Sendable (TagEvent) -> Void, finished: @escaping @Sendable () -> Void
    ) -> any ReaderThread {
        PCSCReader(config: config, jobs: jobs, emit: emit, finished: finished)
    }

    /// `pcscd: N readers`, then each as `pcsc:<name>`; or why pcscd could not be asked.
    public static func listDevices(extra: [String]) -> DeviceListing {
        switch PCSCDevice.listReadersWithPorts() {
        case .success(let readers):
            var lines = ["pcscd: \(readers.count) reader\(readers.count == 1 ? "" : "s")"]
            for reader in readers {
                lines.append("\(PCSCDevice.scheme):\(reader.name)\tPC/SC reader")
                if let port = reader.port { lines.append(USBPorts.line(port: port, device: "\(PCSCDevice.prefix)usb-port:\(port)")) }
            }
            return DeviceListing(lines: lines, found: readers.count, usable: readers.count)
        case .failure(let error):
            return DeviceListing(lines: ["pcscd: not reachable (\(error))"], found: 0, usable: 0)
        }
    }

    /// pcscd's own trouble is said by `devices`; whether it holds a reader libnfc wants, by libnfc's checks.
    public static func doctorChecks(_ machine: DoctorMachine) -> [DoctorCheck] { [] }

    public static func reachTag<T>(
        device: String, timeout: Duration, ifBusy: ReaderConfig.BusyPolicy, _ body: (TagInfo, any NDEFTagDriver) throws -> T
    ) throws -> T {
        try PCSCTagAccess.reachTag(device: device, timeout: timeout, body)
    }

    /// A reader of a known model whose outcome colours are set: the daemon tells it each action's outcome.
    public static func showsOutcomes(_ config: ReaderConfig) -> Bool { config.feedback.model != .none }
}

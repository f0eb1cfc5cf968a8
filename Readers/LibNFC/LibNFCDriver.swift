import TagCore
import TagKit
import TagReader
import TagRouter

/// Readers libnfc drives: PN532 boards on a serial line, I²C or SPI, ACR122U and
/// other PN53x USB readers. Its devices are libnfc's connstrings, so it is the
/// kind without a scheme: every `device:` no other driver claims, `auto` included,
/// and `usb-port:<port>`, the reader in that USB port (`USBPortDevice`).
public enum LibNFCDriver: ReaderDriver {
    public static let scheme: String? = nil
    public static let title = "libnfc"
    public static let deviceHelp =
        "a libnfc connstring such as `pn532_uart:/dev/ttyUSB0` (a path may be a symlink), `auto` for the first libnfc reader found, "
        + "`usb-port:1-1.2` for the USB reader or USB-serial PN532 board plugged into that port, as `tagrouter devices` prints it (identical readers keep their names)"

    /// What libnfc readers cannot do, said as warnings: LED patterns and silencing
    /// their detection beep (libnfc has no call for either).
    public static func load(_ value: ConfigValue, into reader: inout ReaderConfig, _ errors: inout ConfigErrors) {
        if let error = ReaderConfig.usbPortError(reader.device, in: value) { errors.append(error) }
        let feedback = value.section("feedback")
        if let key = ReaderFeedback.patternKeys.first(where: feedback.has) {
            errors.append(cannot("show LED patterns", reader, at: feedback, key))
        }
        if value.has("beep_on_detect"), !reader.beepOnDetect {
            errors.append(cannot("turn its detection beep off", reader, at: value, "beep_on_detect"))
        }
    }

    /// The warning that `reader` cannot `what`, at `key` of `section`.
    private static func cannot(_ what: String, _ reader: ReaderConfig, at section: ConfigValue, _ key: String) -> ConfigError {
        ConfigError(
            mark: section.node[key]?.mark ?? section.mark, path: "\(section.path).\(key)",
            message: "reader '\(reader.name)' is a libnfc reader (\(reader.device)), and libnfc has no LED or buzzer call: tagrouter cannot \(what) there; "
                + "give it `feedback.sound` files to hear the outcome on this machine, or drive an ACR122U through pcscd (`device: \"pcsc:ACS ACR122U*\"`, docs/feedback.md)",
            isWarning: true)
    }

    public static func reader(
        _ config: ReaderConfig, present: [TagEvent], jobs: TagJobQueue?,
        emit: @escaping @Sendable (TagEvent) -> Void, finished: @escaping @Sendable () -> Void
    ) -> any ReaderThread {
        LibNFCReader(config: config, present: present, jobs: jobs, emit: emit, finished: finished)
    }

    /// `libnfc <version>`, then every device libnfc lists (and `extra`), opened once,
    /// with its USB port under it, and the USB-serial adapters by port (not opened);
    /// when none is found or one fails to open, the causes that apply on this machine.
    public static func listDevices(extra: [String]) -> DeviceListing {
        let probes = DeviceProbe.probeAll(extra: extra)
        let ports = USBPorts()
        var lines = ["libnfc \(DeviceProbe.libnfcVersion)"]
        for probe in probes {
            lines.append("\(probe.connstring)\t\(probe.name ?? probe.busy ?? "FAILED to open")")
            if let port = ports.port(ofConnstring: probe.connstring) { lines.append(USBPorts.line(port: port, device: "usb-port:\(port)")) }
        }
        // Listed from sysfs, never opened: a serial port the config does not name is not probed.
        let listed = Set(probes.compactMap { ports.port(ofConnstring: $0.connstring) })
        let adapters = ports.serialAdapters().filter { !listed.contains($0.port) }
        if !adapters.isEmpty {
            lines.append("USB-serial adapters (not opened; a PN532 board on one is read with the device shown):")
            for adapter in adapters {
                lines += ["\(adapter.device)\tnot probed", USBPorts.line(port: adapter.port, device: "usb-port:\(adapter.port)")]
            }
        }
        let failed = probes.filter { !$0.opened && $0.busy == nil }.map(\.connstring)
        let causes = probes.isEmpty || !failed.isEmpty ? DeviceDiagnosis().causes(failedDevices: failed) : []
        return DeviceListing(lines: lines, found: probes.count, usable: probes.filter(\.opened).count, causes: causes)
    }

    public static func doctorChecks(_ machine: DoctorMachine) -> [DoctorCheck] {
        HardwareDoctor(root: machine.root, environment: LibNFCSettings.user, account: machine.account).checks(configured: machine.configured)
    }

    public static func reachTag<T>(
        device: String, timeout: Duration, ifBusy: ReaderConfig.BusyPolicy, _ body: (TagInfo, any NDEFTagDriver) throws -> T
    ) throws -> T {
        try LibNFCTagAccess.reachTag(device: device, timeout: timeout, ifBusy: ifBusy, body)
    }

    public static func isHeldElsewhere(_ device: String) -> Bool { LibNFCTagAccess.isHeldElsewhere(device) }

    /// A serial board's port (`pn532_uart:/dev/serial0`); USB readers are reached through libusb, not a node of their own.
    public static func deviceNode(_ device: String) -> DeviceNodePath? {
        guard let port = DeviceDiagnosis.portPath(of: device), let path = DeviceDiagnosis.nodePath(of: device) else { return nil }
        return DeviceNodePath(port: port, path: path)
    }

    /// Opens `device` once (`auto`: the first that opens) and says why when it does not.
    public static func opening(_ device: String) -> Result<String, DeviceUnavailable> {
        let probe = DeviceProbe.probe(device)
        if let probe, probe.opened { return .success(probe.connstring) }
        if let busy = probe?.busy { return .failure(DeviceUnavailable([busy])) }
        let what = device == "auto" ? "no reader found" : "could not open the reader '\(device)'"
        let causes = DeviceDiagnosis().causes(failedDevices: device == "auto" ? [] : [device])
        return .failure(DeviceUnavailable([what] + causes.map { "- " + $0 }))
    }
}

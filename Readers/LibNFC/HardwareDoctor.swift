import TagReader
import FoundationEssentials
import Glibc

/// The machine half of `tagrouter doctor`: is there a reader, and can the service
/// user open it? Kernel NFC modules, pcscd, known USB readers and their device
/// nodes, serial ports, a Raspberry Pi's UART and console, I²C and SPI nodes, USB
/// autosuspend, and the libnfc settings the user made. Everything is read under a
/// root folder (`/` on a real machine), so each check can be tried on a made-up one.
public struct HardwareDoctor: Sendable {
    let diagnosis: DeviceDiagnosis
    /// Whose access is judged: the service user, or whoever runs the doctor.
    let account: MachineAccount

    /// `environment` must be the one the user started with: libnfc sets `LIBNFC_*` variables of its own once it runs.
    public init(root: String = "/", environment: [String: String], account: MachineAccount) {
        diagnosis = DeviceDiagnosis(root: root, environment: environment)
        self.account = account
    }

    /// Every check, in the order a person would look. `configured`: the readers the config names
    /// by a device node (`pn532_uart:/dev/ttyS0` → `/dev/ttyS0`), each checked as that reader:
    /// a reader on a port no list here knows is not "no reader".
    public func checks(configured: [(reader: String, node: String)] = []) -> [DoctorCheck] {
        let readers = diagnosis.usbReaders()
        let configuredNodes = Set(configured.map(\.node))
        let serial = nodes(["ttyUSB*", "ttyACM*", "ttyAMA0", "serial0"]).filter { !configuredNodes.contains($0) }
        let buses = nodes(["i2c-*", "spidev*"]).filter { !configuredNodes.contains($0) }
        var checks = [kernelModules(), pcscd(readers)]
        checks += configured.map { access($0.node, what: "reader '\($0.reader)' on", blocking: true) }
        if readers.isEmpty && serial.isEmpty && buses.isEmpty && configured.isEmpty {
            checks.append(.failed(
                "readers: no known USB reader, serial port, I²C or SPI device",
                fix: "plug the reader in (USB readers that work: docs/guide/hardware.md), then `tagrouter devices`"))
        }
        for reader in readers {
            checks.append(access(reader.node, what: "USB reader \(reader.name)", blocking: true))
            checks.append(autosuspend(reader))
        }
        checks += serial.map { access($0, what: "serial port", blocking: false) }
        checks += raspberryPi(hasBuses: !buses.isEmpty)
        checks += buses.map { access($0, what: $0.contains("i2c") ? "I²C bus" : "SPI device", blocking: false) }
        checks.append(libnfcSettings())
        return checks
    }

    func kernelModules() -> DoctorCheck {
        let loaded = DeviceDiagnosis.kernelModules.filter(diagnosis.loadedModules().contains)
        guard !loaded.isEmpty else { return .ok("kernel NFC modules: none loaded (pn533_usb, pn533, nfc)") }
        return .failed(
            "kernel NFC modules loaded: \(loaded.joined(separator: ", ")) (they take PN533 and ACR122U readers from libnfc)",
            fix: "sudo modprobe -r pn533_usb pn533 nfc (the package's /usr/lib/modprobe.d/blacklist-tagrouter.conf keeps them off after a reboot)")
    }

    func pcscd(_ readers: [DeviceDiagnosis.USBReader]) -> DoctorCheck {
        let pids = diagnosis.processIDs(named: "pcscd")
        guard let pid = pids.first else { return .ok("pcscd: not running") }
        let folder = diagnosis.root + "proc/\(pid)/fd"
        let open = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            .compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + $0) }
        guard let held = readers.first(where: { open.contains($0.node) }) else {
            return .ok("pcscd: running (pid \(pid)), holds no NFC reader")
        }
        return .failed(
            "pcscd: running (pid \(pid)) and holds \(held.name) (\(held.node))",
            fix: "sudo systemctl disable --now pcscd.socket pcscd, or use the reader through it with `device: pcsc`")
    }

    /// Whether the account may read and write `node` (a path from the root, `/dev/…`).
    func access(_ node: String, what: String, blocking: Bool) -> DoctorCheck {
        var info = stat()
        guard stat(diagnosis.root + String(node.dropFirst()), &info) == 0 else {
            return .failed("\(what) \(node): cannot be read", fix: "ls -l \(node)", blocking: blocking)
        }
        let group = MachineAccount.groupName(info.st_gid, root: diagnosis.root)
        let mode = String(info.st_mode & 0o777, radix: 8)
        let granted = DeviceModeBits.permits(
            mode: UInt32(info.st_mode), owner: info.st_uid, group: info.st_gid, user: account.uid, groups: account.groups)
        let finding = "\(what) \(node) (group \(group), mode \(mode)): \(account.name) \(granted ? "can" : "cannot") open it"
        if granted { return .ok(finding) }
        let fix = info.st_mode & 0o060 == 0o060 && group != "root"
            ? "sudo usermod -aG \(group) \(account.name) (then restart the service, or log in again)"
            : "install the udev rules (the package's /usr/lib/udev/rules.d/99-tagrouter-nfc.rules), "
                + "then sudo udevadm control --reload-rules && sudo udevadm trigger"
        return .failed(finding, fix: fix, blocking: blocking)
    }

    func autosuspend(_ reader: DeviceDiagnosis.USBReader) -> DoctorCheck {
        let control = diagnosis.read(reader.sysfsEntry + "/power/control")?.trimmingWhitespace()
        guard control == "auto" else { return .ok("USB autosuspend: off for \(reader.name)") }
        return .failed(
            "USB autosuspend: on for \(reader.name); the reader may sleep and miss taps",
            fix: "echo on | sudo tee /\(reader.sysfsEntry)/power/control", blocking: false)
    }

    /// On a Raspberry Pi: the UART enabled, and not given to the serial console.
    func raspberryPi(hasBuses: Bool) -> [DoctorCheck] {
        guard let model = diagnosis.read("proc/device-tree/model")?.trimming(while: { $0 == "\0" || $0 == "\n" }),
            model.contains("Raspberry Pi")
        else { return [] }
        var checks: [DoctorCheck] = []
        if FileManager.default.fileExists(atPath: diagnosis.root + "dev/serial0") {
            checks.append(.ok("\(model): UART enabled (/dev/serial0)"))
        } else {
            checks.append(.failed(
                "\(model): UART disabled (no /dev/serial0), needed for a PN532 on GPIO 14/15",
                fix: "add enable_uart=1 to /boot/firmware/config.txt and reboot", blocking: false))
        }
        let commandLine = diagnosis.read("proc/cmdline") ?? ""
        if let console = ["console=serial0", "console=ttyAMA0", "console=ttyS0"].first(where: commandLine.contains) {
            checks.append(.failed(
                "\(model): the serial console has the UART (\(console) on the kernel command line)",
                fix: "remove \(console),115200 from /boot/firmware/cmdline.txt (raspi-config: Interface Options → Serial Port → login shell no, hardware yes) and reboot",
                blocking: false))
        } else {
            checks.append(.ok("\(model): the UART is free of the serial console"))
        }
        if !hasBuses {
            checks.append(.ok("\(model): I²C and SPI off (for a PN532 on them: dtparam=i2c_arm=on or dtparam=spi=on in /boot/firmware/config.txt)"))
        }
        return checks
    }

    func libnfcSettings() -> DoctorCheck {
        let settings = diagnosis.libnfcVariables + diagnosis.libnfcConfSettings.map { "libnfc.conf: \($0)" }
        guard !settings.isEmpty else {
            return .ok("libnfc settings: none made (USB readers are found by themselves; name a serial one with `device:` in the config)")
        }
        return .ok("libnfc settings you made: " + settings.joined(separator: "; "))
    }

    /// The device nodes matching `patterns` (`ttyUSB*`) under the root's /dev, as `/dev/…`, sorted.
    func nodes(_ patterns: [String]) -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: diagnosis.root + "dev")) ?? []
        return entries.filter { entry in
            patterns.contains { pattern in
                pattern.hasSuffix("*") ? entry.hasPrefix(pattern.dropLast()) && entry.count > pattern.count - 1 : entry == pattern
            }
        }.sorted().map { "/dev/" + $0 }
    }
}

import TagReader
import FoundationEssentials
import Glibc

/// Why libnfc finds no reader, or cannot open one, on this machine: the usual
/// culprits, each checked here rather than guessed — kernel NFC modules claiming
/// the USB reader, `pcscd` holding it, device-node permissions, and the
/// `libnfc.conf` / `LIBNFC_*` settings that decide which devices libnfc scans.
public struct DeviceDiagnosis: Sendable {
    /// USB readers libnfc drives, by `vendor:product`.
    static let knownUSBReaders: [String: String] = [
        "072f:2200": "ACS ACR122U", "072f:90cc": "Touchatag (ACR122U)", "04cc:2533": "NXP PN533",
        "04e6:5591": "SCM SCL3711", "054c:02e1": "Sony RC-S360", "1fd3:0608": "ASK LoGO",
    ]
    /// The kernel modules that bind PN533-family readers (ACR122U included) before libnfc can.
    static let kernelModules = ["pn533_usb", "pn533", "nfc"]

    /// The file system root (tests point it at a directory of their own).
    let root: String
    let environment: [String: String]

    public init(root: String = "/", environment: [String: String] = LibNFCSettings.user) {
        self.root = root.hasSuffix("/") ? root : root + "/"
        self.environment = environment
    }

    /// The causes that apply here, one sentence each with what to do; `devices`
    /// are the connstrings that failed to open (their device nodes are checked).
    public func causes(failedDevices devices: [String] = []) -> [String] {
        var causes: [String] = []
        let modules = loadedModules()
        let claiming = Self.kernelModules.filter(modules.contains)
        if !claiming.isEmpty {
            causes.append(
                "kernel module(s) \(claiming.joined(separator: ", ")) loaded: they claim PN533/ACR122U readers before libnfc. "
                    + "Run `sudo modprobe -r pn533_usb pn533 nfc` and install config/modprobe/blacklist-libnfc.conf into /etc/modprobe.d/")
        }
        if processRunning("pcscd") {
            causes.append(
                "pcscd is running and holds ACR122U readers: stop it (`sudo systemctl stop pcscd.socket pcscd`) "
                    + "or let pcscd keep it and use it through PC/SC: `device: pcsc:auto` (`tagrouter devices` lists pcscd's readers)")
        }
        for reader in usbReaders() where !reader.accessible {
            causes.append(
                "no read/write permission on \(reader.node) (\(reader.name)): install config/udev/99-tagrouter-nfc.rules "
                    + "into /etc/udev/rules.d/ and replug the reader, or add yourself to group '\(reader.group)'")
        }
        for device in devices {
            if let cause = nodeProblem(connstring: device) { causes.append(cause) }
        }
        causes.append(contentsOf: settingsNotes())
        return causes
    }

    // MARK: - Checks

    func loadedModules() -> Set<String> {
        guard let text = read("proc/modules") else { return [] }
        return Set(text.split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) })
    }

    func processRunning(_ name: String) -> Bool {
        !processIDs(named: name).isEmpty
    }

    /// The processes whose command name (`/proc/PID/comm`) is `name`, by pid.
    func processIDs(named name: String) -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: root + "proc")) ?? []
        return entries.sorted().filter { entry in
            entry.allSatisfy(\.isNumber) && read("proc/\(entry)/comm")?.trimmingWhitespace() == name
        }
    }

    struct USBReader {
        var name: String
        /// The device node, `/dev/bus/usb/BBB/DDD`.
        var node: String
        var group: String
        var accessible: Bool
        /// The device's folder in sysfs, relative to the root (`sys/bus/usb/devices/1-1`).
        var sysfsEntry: String
    }

    func usbReaders() -> [USBReader] {
        let devices = root + "sys/bus/usb/devices/"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: devices)) ?? []
        return entries.sorted().compactMap { entry -> USBReader? in
            func attribute(_ name: String) -> String? {
                read("sys/bus/usb/devices/\(entry)/\(name)")?.trimmingWhitespace()
            }
            guard let vendor = attribute("idVendor"), let product = attribute("idProduct"),
                let name = Self.knownUSBReaders["\(vendor):\(product)"],
                let bus = attribute("busnum").flatMap(Int.init), let number = attribute("devnum").flatMap(Int.init)
            else { return nil }
            let node = "dev/bus/usb/" + Self.threeDigits(bus) + "/" + Self.threeDigits(number)
            let access = DeviceModeBits.access(root + node)
            return USBReader(
                name: name, node: "/" + node, group: access.group, accessible: access.granted, sysfsEntry: "sys/bus/usb/devices/\(entry)")
        }
    }

    /// A connstring's device node (`pn532_uart:/dev/ttyUSB0`, through symlinks) missing or not accessible.
    func nodeProblem(connstring: String) -> String? {
        guard let path = Self.portPath(of: connstring) else { return nil }
        let resolved = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)).map { target in
            target.hasPrefix("/") ? target : path.parentPath + "/" + target
        } ?? path
        guard FileManager.default.fileExists(atPath: resolved) else {
            return "\(path) does not exist" + (resolved == path ? "" : " (it links to \(resolved), which is gone)")
                + ": is the reader plugged in (or the simulator running)?"
        }
        let access = DeviceModeBits.access(resolved)
        if !access.granted {
            return "no read/write permission on \(resolved): add yourself to group '\(access.group)' (`sudo usermod -aG \(access.group) $USER`, then log in again)"
        }
        return nil
    }

    /// The port a connstring names when it is a path: `/dev/ttyUSB0` of `pn532_uart:/dev/ttyUSB0:115200`.
    public static func portPath(of connstring: String) -> String? {
        let parts = connstring.split(separator: ":", maxSplits: 2).map(String.init)
        guard parts.count >= 2, parts[1].hasPrefix("/") else { return nil }
        return parts[1]
    }

    /// That port with every symlink resolved (`/dev/serial0` → `/dev/ttyAMA0`); nil when it is not there.
    public static func nodePath(of connstring: String) -> String? {
        guard let port = portPath(of: connstring), let resolved = realpath(port, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The `LIBNFC_*` variables of the environment given, as `NAME=value`, sorted.
    var libnfcVariables: [String] {
        environment.filter { $0.key.hasPrefix("LIBNFC_") }.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    }

    /// The settings lines of `/etc/nfc/libnfc.conf` (no comments, no blank lines).
    var libnfcConfSettings: [String] {
        read("etc/nfc/libnfc.conf")?.split(separator: "\n").map { $0.trimmingWhitespace() }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") } ?? []
    }

    func settingsNotes() -> [String] {
        var notes: [String] = []
        let variables = libnfcVariables
        if !variables.isEmpty {
            notes.append("libnfc settings from the environment: " + variables.joined(separator: " "))
        }
        let settings = libnfcConfSettings
        if !settings.isEmpty {
            notes.append("/etc/nfc/libnfc.conf sets: " + settings.joined(separator: "; "))
        }
        let serialConfigured = environment["LIBNFC_DEVICE"] != nil || environment["LIBNFC_DEFAULT_DEVICE"] != nil
            || environment["LIBNFC_INTRUSIVE_SCAN"] == "true"
            || settings.contains { $0.hasPrefix("device.connstring") || $0.hasPrefix("allow_intrusive_scan = true") }
        if !serialConfigured {
            notes.append(
                "libnfc does not scan serial ports by default: for a PN532 on a UART set LIBNFC_DEVICE=pn532_uart:/dev/ttyUSB0, "
                    + "or device.connstring in /etc/nfc/libnfc.conf (sample: config/libnfc.conf), or pass --device")
        }
        return notes
    }

    // MARK: - Helpers

    /// A file under the root, nil when it cannot be read.
    func read(_ path: String) -> String? {
        try? String(contentsOfFile: root + path, encoding: .utf8)
    }

    private static func threeDigits(_ number: Int) -> String {
        let digits = String(number)
        return String(repeating: "0", count: max(0, 3 - digits.count)) + digits
    }
}

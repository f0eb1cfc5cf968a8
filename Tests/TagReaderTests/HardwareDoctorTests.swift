import Foundation
import Testing

@testable import ReaderLibNFC
@testable import TagReader

/// `tagrouter doctor`'s machine checks, each tried both ways on a made-up machine:
/// a folder laid out like /proc, /sys, /dev and /etc, with device nodes owned and
/// moded as udev would leave them.
@Suite struct HardwareDoctorTests {
    /// A machine with the service user `tagrouter` (uid 999), in `groups` (name → gid).
    final class Machine {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("doctor-\(UUID().uuidString)").path

        init(tagrouterIn groups: [String] = [], files: [String: String] = [:]) throws {
            let table = ["root": 0, "dialout": 20, "plugdev": 46, "i2c": 998]
            var all = files
            all["etc/passwd"] = "root:x:0:0:root:/root:/bin/bash\ntagrouter:x:999:999::/var/lib/tagrouter:/usr/sbin/nologin\n"
            all["etc/group"] = table.map { "\($0.key):x:\($0.value):\(groups.contains($0.key) ? "tagrouter" : "")" }.joined(separator: "\n")
                + "\ntagrouter:x:999:\n"
            for (path, content) in all { try write(path, content) }
        }

        func write(_ path: String, _ content: String) throws {
            let url = URL(fileURLWithPath: root + "/" + path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try content.write(to: url, atomically: true, encoding: .utf8)
        }

        /// A device node stand-in: a file with udev's group and mode.
        func node(_ path: String, group: gid_t, mode: mode_t) throws {
            try write(path, "")
            #expect(chown(root + "/" + path, 0, group) == 0)
            #expect(chmod(root + "/" + path, mode) == 0)
        }

        /// An ACR122U on bus 1 as device 7, with its node.
        func acr122u(group: gid_t = 46, mode: mode_t = 0o660, autosuspend: String = "on") throws {
            for (name, value) in ["idVendor": "072f", "idProduct": "2200", "busnum": "1", "devnum": "7", "power/control": autosuspend] {
                try write("sys/bus/usb/devices/1-1/\(name)", value + "\n")
            }
            try node("dev/bus/usb/001/007", group: group, mode: mode)
        }

        func checks(environment: [String: String] = [:]) throws -> [DoctorCheck] {
            let account = try #require(MachineAccount.lookup("tagrouter", root: root))
            return HardwareDoctor(root: root, environment: environment, account: account).checks()
        }

        deinit { try? FileManager.default.removeItem(atPath: root) }
    }

    static func line(_ checks: [DoctorCheck], _ prefix: String) -> DoctorCheck? {
        checks.first { $0.finding.hasPrefix(prefix) }
    }

    @Test func accountsComeFromTheMachinesPasswdAndGroup() throws {
        let machine = try Machine(tagrouterIn: ["plugdev", "dialout"])
        let account = try #require(MachineAccount.lookup("tagrouter", root: machine.root))
        #expect(account == MachineAccount(name: "tagrouter", uid: 999, gid: 999, groups: [999, 46, 20]))
        #expect(MachineAccount.lookup("nobody", root: machine.root) == nil)
        #expect(MachineAccount.groupName(46, root: machine.root) == "plugdev")
    }

    @Test func kernelModulesBlockWhenLoaded() throws {
        let clean = try Machine(files: ["proc/modules": "ext4 1 0 - Live\n"]).checks()
        #expect(Self.line(clean, "kernel NFC modules")?.passed == true)
        let loaded = try Machine(files: ["proc/modules": "pn533_usb 1 0 - Live\npn533 1 1 pn533_usb, Live\n"]).checks()
        let check = try #require(Self.line(loaded, "kernel NFC modules"))
        #expect(!check.passed && check.blocking)
        #expect(check.line.hasPrefix("✗ kernel NFC modules loaded: pn533_usb, pn533 "))
        #expect(check.fix?.hasPrefix("sudo modprobe -r pn533_usb pn533 nfc") == true)
    }

    @Test func pcscdBlocksOnlyWhenItHoldsAReader() throws {
        let idle = try Machine(tagrouterIn: ["plugdev"], files: ["proc/812/comm": "pcscd\n"])
        try idle.acr122u()
        #expect(Self.line(try idle.checks(), "pcscd")?.finding == "pcscd: running (pid 812), holds no NFC reader")

        let holding = try Machine(tagrouterIn: ["plugdev"], files: ["proc/812/comm": "pcscd\n"])
        try holding.acr122u()
        try FileManager.default.createDirectory(atPath: holding.root + "/proc/812/fd", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: holding.root + "/proc/812/fd/5", withDestinationPath: "/dev/bus/usb/001/007")
        let check = try #require(Self.line(try holding.checks(), "pcscd"))
        #expect(check.line.hasPrefix("✗ pcscd: running (pid 812) and holds ACS ACR122U (/dev/bus/usb/001/007) → sudo systemctl disable --now pcscd.socket pcscd"))
        #expect(check.blocking)

        #expect(Self.line(try Machine().checks(), "pcscd")?.line == "✓ pcscd: not running")
    }

    @Test func usbReaderAccessFollowsTheServiceUsersGroups() throws {
        let member = try Machine(tagrouterIn: ["plugdev"])
        try member.acr122u()
        #expect(Self.line(try member.checks(), "USB reader")?.line
            == "✓ USB reader ACS ACR122U /dev/bus/usb/001/007 (group plugdev, mode 660): tagrouter can open it")

        let outsider = try Machine()
        try outsider.acr122u()
        let check = try #require(Self.line(try outsider.checks(), "USB reader"))
        #expect(!check.passed && check.blocking)
        #expect(check.fix == "sudo usermod -aG plugdev tagrouter (then restart the service, or log in again)")

        let noRules = try Machine(tagrouterIn: ["plugdev"])
        try noRules.acr122u(group: 0, mode: 0o664)
        #expect(Self.line(try noRules.checks(), "USB reader")?.fix?.hasPrefix("install the udev rules") == true)
    }

    @Test func noReaderAtAllBlocks() throws {
        let check = try #require(Self.line(try Machine().checks(), "readers:"))
        #expect(!check.passed && check.blocking)
        let withSerial = try Machine(tagrouterIn: ["dialout"])
        try withSerial.node("dev/ttyUSB0", group: 20, mode: 0o660)
        let checks = try withSerial.checks()
        #expect(Self.line(checks, "readers:") == nil)
        #expect(Self.line(checks, "serial port /dev/ttyUSB0")?.passed == true)
    }

    @Test func serialPortsNeedDialout() throws {
        let outsider = try Machine()
        try outsider.node("dev/ttyACM0", group: 20, mode: 0o660)
        let check = try #require(Self.line(try outsider.checks(), "serial port /dev/ttyACM0"))
        #expect(!check.passed && !check.blocking)
        #expect(check.fix == "sudo usermod -aG dialout tagrouter (then restart the service, or log in again)")
    }

    @Test func autosuspendIsReportedForTheReader() throws {
        let awake = try Machine(tagrouterIn: ["plugdev"])
        try awake.acr122u(autosuspend: "on")
        #expect(Self.line(try awake.checks(), "USB autosuspend")?.passed == true)
        let sleepy = try Machine(tagrouterIn: ["plugdev"])
        try sleepy.acr122u(autosuspend: "auto")
        let check = try #require(Self.line(try sleepy.checks(), "USB autosuspend"))
        #expect(!check.passed && !check.blocking)
        #expect(check.fix == "echo on | sudo tee /sys/bus/usb/devices/1-1/power/control")
    }

    @Test func raspberryPiUARTAndConsole() throws {
        let model = "Raspberry Pi 4 Model B Rev 1.4\0"
        let good = try Machine(tagrouterIn: ["dialout"], files: ["proc/device-tree/model": model, "proc/cmdline": "console=tty1 root=/dev/mmcblk0p2\n"])
        try good.node("dev/ttyAMA0", group: 20, mode: 0o660)
        try FileManager.default.createSymbolicLink(atPath: good.root + "/dev/serial0", withDestinationPath: "ttyAMA0")
        let fine = try good.checks()
        #expect(Self.line(fine, "Raspberry Pi 4 Model B Rev 1.4: UART enabled")?.passed == true)
        #expect(Self.line(fine, "Raspberry Pi 4 Model B Rev 1.4: the UART is free")?.passed == true)
        #expect(Self.line(fine, "serial port /dev/serial0")?.passed == true)
        #expect(Self.line(fine, "Raspberry Pi 4 Model B Rev 1.4: I²C and SPI off")?.passed == true)

        let bad = try Machine(files: ["proc/device-tree/model": model, "proc/cmdline": "console=serial0,115200 console=tty1\n"])
        let broken = try bad.checks()
        #expect(Self.line(broken, "Raspberry Pi 4 Model B Rev 1.4: UART disabled")?.fix == "add enable_uart=1 to /boot/firmware/config.txt and reboot")
        #expect(Self.line(broken, "Raspberry Pi 4 Model B Rev 1.4: the serial console")?.fix?.hasPrefix("remove console=serial0,115200") == true)

        #expect(!(try Machine().checks()).contains { $0.finding.contains("Raspberry") })
    }

    @Test func i2cAndSPINodesAreChecked() throws {
        let machine = try Machine(tagrouterIn: ["i2c"])
        try machine.node("dev/i2c-1", group: 998, mode: 0o660)
        try machine.node("dev/spidev0.0", group: 0, mode: 0o600)
        let checks = try machine.checks()
        #expect(Self.line(checks, "I²C bus /dev/i2c-1")?.passed == true)
        #expect(Self.line(checks, "SPI device /dev/spidev0.0")?.passed == false)
    }

    /// Only what the user set: the environment given is the one from before libnfc ran.
    @Test func libnfcSettingsAreTheUsersOwn() throws {
        #expect(Self.line(try Machine().checks(), "libnfc settings")?.finding.hasPrefix("libnfc settings: none made") == true)
        let machine = try Machine(files: ["etc/nfc/libnfc.conf": "# comment\nallow_intrusive_scan = true\n"])
        let check = try #require(Self.line(try machine.checks(environment: ["LIBNFC_DEVICE": "pn532_uart:/dev/ttyUSB0", "HOME": "/root"]), "libnfc settings"))
        #expect(check.finding == "libnfc settings you made: LIBNFC_DEVICE=pn532_uart:/dev/ttyUSB0; libnfc.conf: allow_intrusive_scan = true")
    }
}

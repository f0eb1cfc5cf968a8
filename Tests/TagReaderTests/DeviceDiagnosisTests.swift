import Foundation
import Testing

@testable import ReaderLibNFC
@testable import TagReader

/// `tagrouter devices`' explanations, each checked against a made-up machine:
/// a directory laid out like `/proc`, `/sys` and `/etc`.
@Suite struct DeviceDiagnosisTests {
    /// A fresh directory with `files` (relative path → content) written into it.
    func machine(_ files: [String: String]) throws -> String {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("diag-\(UUID().uuidString)").path
        for (path, content) in files {
            let url = URL(fileURLWithPath: root + "/" + path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try content.write(to: url, atomically: true, encoding: .utf8)
        }
        return root
    }

    @Test func namesTheLoadedKernelModules() throws {
        let root = try machine(["proc/modules": "pn533_usb 20480 0 - Live 0x0\npn533 45056 1 pn533_usb, Live 0x0\nnfc 126976 1 pn533, Live 0x0\next4 1 0 - Live\n"])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let causes = DeviceDiagnosis(root: root, environment: ["LIBNFC_DEVICE": "acr122_usb"]).causes()
        #expect(causes.first?.hasPrefix("kernel module(s) pn533_usb, pn533, nfc loaded") == true)
        #expect(causes.count == 2)  // and the LIBNFC_ setting
    }

    @Test func findsPcscdAmongTheProcesses() throws {
        let root = try machine(["proc/1/comm": "systemd\n", "proc/812/comm": "pcscd\n", "proc/self/comm": "pcscd\n"])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let causes = DeviceDiagnosis(root: root, environment: ["LIBNFC_DEVICE": "pcsc"]).causes()
        #expect(causes.contains { $0.hasPrefix("pcscd is running") })
    }

    @Test func saysNothingOfPcscdOrModulesWhenAbsent() throws {
        let root = try machine(["proc/modules": "ext4 1 0 - Live\n", "proc/1/comm": "init\n"])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let causes = DeviceDiagnosis(root: root, environment: [:]).causes()
        #expect(causes.count == 1)
        #expect(causes[0].hasPrefix("libnfc does not scan serial ports by default"))
    }

    @Test func reportsTheConfigFileAndEnvironment() throws {
        let root = try machine(["etc/nfc/libnfc.conf": "# comment\nallow_intrusive_scan = true\n\nlog_level = 3\n"])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let causes = DeviceDiagnosis(root: root, environment: ["LIBNFC_LOG_LEVEL": "3", "HOME": "/root"]).causes()
        #expect(causes == [
            "libnfc settings from the environment: LIBNFC_LOG_LEVEL=3",
            "/etc/nfc/libnfc.conf sets: allow_intrusive_scan = true; log_level = 3",
        ])
    }

    @Test func findsKnownUSBReadersAndTheirNodes() throws {
        let root = try machine([
            "sys/bus/usb/devices/1-1/idVendor": "072f\n", "sys/bus/usb/devices/1-1/idProduct": "2200\n",
            "sys/bus/usb/devices/1-1/busnum": "1\n", "sys/bus/usb/devices/1-1/devnum": "7\n",
            "sys/bus/usb/devices/1-2/idVendor": "1d6b\n", "sys/bus/usb/devices/1-2/idProduct": "0002\n",
            "dev/bus/usb/001/007": "",
        ])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let readers = DeviceDiagnosis(root: root, environment: [:]).usbReaders()
        #expect(readers.map(\.name) == ["ACS ACR122U"])
        #expect(readers.map(\.node) == ["/dev/bus/usb/001/007"])
    }

    @Test func explainsAMissingOrDanglingDeviceNode() throws {
        let root = try machine([:])
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: root + "/pn532", withDestinationPath: root + "/pts-gone")
        let diagnosis = DeviceDiagnosis(root: root, environment: [:])
        #expect(diagnosis.nodeProblem(connstring: "pn532_uart:\(root)/pn532")
            == "\(root)/pn532 does not exist (it links to \(root)/pts-gone, which is gone): is the reader plugged in (or the simulator running)?")
        #expect(diagnosis.nodeProblem(connstring: "acr122_usb") == nil)
    }

    @Test(arguments: [
        (0o660, 1000, 20, 1000, [20], true),  // owner rw
        (0o600, 1000, 20, 1001, [20], false),  // not the owner, group has nothing
        (0o660, 0, 20, 1001, [20], true),  // via the group (dialout)
        (0o660, 0, 20, 1001, [100], false),  // not in the group
        (0o666, 0, 0, 1001, [], true),  // world rw
        (0o000, 5, 5, 0, [], true),  // root
    ])
    func judgesPermissionsLikeTheKernel(mode: Int, owner: Int, group: Int, user: Int, groups: [Int], granted: Bool) {
        #expect(DeviceModeBits.permits(
            mode: UInt32(mode), owner: uid_t(owner), group: gid_t(group), user: uid_t(user),
            groups: Set(groups.map { gid_t($0) })) == granted)
    }
}

import Foundation
import Testing

import ReaderKeyboard
import ReaderLibNFC
@testable import TagReader

/// A service's device sandbox (`DevicePolicy=`, `DeviceAllow=`): what `doctor` reads from `systemctl show`
/// and judges a reader's node by, and what the daemon says when the kernel refuses a node.
@Suite struct DeviceSandboxTests {
    /// `/proc/devices` as a Raspberry Pi has it (abridged).
    static let devices = """
        Character devices:
          1 mem
          4 tty
          4 ttyS
          5 /dev/tty
        136 pts
        188 ttyUSB
        189 usb_device
        204 ttyAMA
        Block devices:
          8 sd
        179 mmc

        """
    /// The packaged unit's sandbox, as systemd 257 shows it.
    static let shipped = DeviceSandbox(
        policy: .closed,
        allowed: ["char-usb_device rw", "char-ttyUSB rw", "char-ttyACM rw", "char-ttyS rw", "/dev/ttyAMA0 rw", "char-i2c rw", "char-spidev rw"])
    static let ttyAMA0 = DeviceSandbox.Node(character: true, major: 204, minor: 64)

    func admits(_ sandbox: DeviceSandbox, _ node: DeviceSandbox.Node) -> Bool {
        sandbox.admits(node, devices: Self.devices, nodeAt: { $0 == "/dev/ttyAMA0" ? Self.ttyAMA0 : nil })
    }

    @Test func theShippedUnitAdmitsReadersAndNotAPseudoTerminal() {
        #expect(admits(Self.shipped, DeviceSandbox.Node(character: true, major: 188, minor: 0)))  // /dev/ttyUSB0
        #expect(admits(Self.shipped, DeviceSandbox.Node(character: true, major: 189, minor: 5)))  // a USB reader
        #expect(admits(Self.shipped, Self.ttyAMA0))  // named by path
        #expect(admits(Self.shipped, DeviceSandbox.Node(character: true, major: 4, minor: 64)))  // ttyS0: major 4 is tty and ttyS
        #expect(!admits(Self.shipped, DeviceSandbox.Node(character: true, major: 136, minor: 3)))  // the simulator's /dev/pts/3
        #expect(!admits(Self.shipped, DeviceSandbox.Node(character: true, major: 204, minor: 65)))  // /dev/ttyAMA1
        #expect(!admits(Self.shipped, DeviceSandbox.Node(character: false, major: 188, minor: 0)))  // a block device of that major
    }

    @Test func aDropInAdmitsByClassGlobOrPathAndOnlyForReadingAndWriting() {
        var sandbox = Self.shipped
        sandbox.allowed.append("char-pts rw")
        #expect(admits(sandbox, DeviceSandbox.Node(character: true, major: 136, minor: 3)))
        #expect(admits(DeviceSandbox(policy: .strict, allowed: ["char-ttyA* rw"]), DeviceSandbox.Node(character: true, major: 204, minor: 65)))
        #expect(!admits(DeviceSandbox(policy: .closed, allowed: ["char-pts r"]), DeviceSandbox.Node(character: true, major: 136, minor: 3)))
        #expect(admits(DeviceSandbox(policy: .closed, allowed: ["char-pts"]), DeviceSandbox.Node(character: true, major: 136, minor: 3)))
        #expect(admits(DeviceSandbox(policy: .auto, allowed: []), DeviceSandbox.Node(character: true, major: 136, minor: 3)))
        #expect(!admits(DeviceSandbox(policy: .strict, allowed: []), DeviceSandbox.Node(character: true, major: 136, minor: 3)))
    }

    @Test func theEntryToAddNamesTheClassElseThePath() {
        #expect(DeviceSandbox.entry(for: DeviceSandbox.Node(character: true, major: 136, minor: 3), path: "/dev/pts/3", devices: Self.devices) == "char-pts")
        #expect(DeviceSandbox.entry(for: DeviceSandbox.Node(character: true, major: 240, minor: 0), path: "/dev/nfc0", devices: Self.devices) == "/dev/nfc0")
        #expect(DeviceSandbox.entry(for: DeviceSandbox.Node(character: false, major: 179, minor: 0), path: "/dev/mmcblk0", devices: Self.devices) == "block-mmc")
    }

    @Test func readsSystemctlShow() {
        let shown = DeviceSandbox(systemctlShow: """
            LoadState=loaded
            DevicePolicy=closed
            DeviceAllow=char-usb_device rw
            DeviceAllow=/dev/ttyAMA0 rw

            """)
        #expect(shown == DeviceSandbox(policy: .closed, allowed: ["char-usb_device rw", "/dev/ttyAMA0 rw"]))
        #expect(DeviceSandbox(systemctlShow: "LoadState=not-found\nDevicePolicy=auto\nDeviceAllow=\n") == nil)
    }

    @Test func findsTheServiceAProcessRunsIn() {
        let hybrid = "9:name=systemd:/system.slice/tagrouter.service\n5:devices:/system.slice/tagrouter.service\n0::/system.slice/tagrouter.service\n"
        #expect(DeviceSandbox.serviceUnit(cgroups: hybrid)?.name == "tagrouter.service")
        #expect(DeviceSandbox.serviceUnit(cgroups: hybrid)?.user == false)
        let user = "0::/user.slice/user-1000.slice/user@1000.service/app.slice/tagrouter.service\n"
        #expect(DeviceSandbox.serviceUnit(cgroups: user)?.name == "tagrouter.service")
        #expect(DeviceSandbox.serviceUnit(cgroups: user)?.user == true)
        #expect(DeviceSandbox.serviceUnit(cgroups: "0::/user.slice/user-1000.slice/session-2.scope\n") == nil)
    }

    /// A node that opens and one that is missing are no sandbox's doing; a connstring without a path names no node.
    @Test func aNodeThatOpensOrIsMissingIsNoRefusal() {
        #expect(DeviceSandbox.Node(path: "/dev/null") == DeviceSandbox.Node(character: true, major: 1, minor: 3))
        #expect(DeviceSandbox.refusal(of: DeviceNodePath(port: "/dev/null", path: "/dev/null")) == nil)
        let missing = "/dev/tagrouter-no-such-port"
        #expect(DeviceSandbox.refusal(of: DeviceNodePath(port: missing, path: missing)) == nil)
        #expect(LibNFCDriver.deviceNode("pn532_uart:\(missing)") == nil)
        #expect(LibNFCDriver.deviceNode("acr122_usb") == nil)
        #expect(LibNFCDriver.deviceNode("pn532_uart:/dev/null") == DeviceNodePath(port: "/dev/null", path: "/dev/null"))
    }
}

/// An input device (a keyboard-wedge reader's) is only read: its mode bits and a sandbox's `DeviceAllow=`
/// are judged for reading, where a serial board's node needs reading and writing.
extension DeviceSandboxTests {
    /// `/dev/input/event3`: the input class's major number.
    static let inputNode = DeviceSandbox.Node(character: true, major: 13, minor: 67)
    static let inputDevices = "Character devices:\n 13 input\n188 ttyUSB\n"

    @Test func aNodeReadOnlyIsJudgedForReadingAlone() {
        // `crw-r----- root input`, an account in the input group.
        #expect(DeviceModeBits.permits(mode: 0o20640, owner: 0, group: 104, user: 1000, groups: [104], needs: .read))
        #expect(!DeviceModeBits.permits(mode: 0o20640, owner: 0, group: 104, user: 1000, groups: [104], needs: .readWrite))
        #expect(!DeviceModeBits.permits(mode: 0o20600, owner: 0, group: 104, user: 1000, groups: [104], needs: .read))
        let readOnly = DeviceSandbox(policy: .closed, allowed: ["char-input r"])
        #expect(readOnly.admits(Self.inputNode, devices: Self.inputDevices, needs: .read))
        #expect(!readOnly.admits(Self.inputNode, devices: Self.inputDevices, needs: .readWrite))
        #expect(!DeviceSandbox(policy: .closed, allowed: ["char-input w"]).admits(Self.inputNode, devices: Self.inputDevices, needs: .read))
    }

    /// A keyboard reader names its input node (symlinks resolved) for the sandbox checks, to be read only.
    @Test func aKeyboardReaderNamesItsInputNodeForReading() throws {
        let link = NSTemporaryDirectory() + "keyboard-link-\(UUID().uuidString)"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/dev/null")
        defer { try? FileManager.default.removeItem(atPath: link) }
        #expect(KeyboardDriver.deviceNode("keyboard:" + link) == DeviceNodePath(port: link, path: "/dev/null", access: .read))
        #expect(KeyboardDriver.deviceNode("keyboard:/dev/tagrouter-no-such-input") == nil)
        #expect(DeviceSandbox.refusal(of: DeviceNodePath(port: "/dev/null", path: "/dev/null", access: .read)) == nil)
    }
}

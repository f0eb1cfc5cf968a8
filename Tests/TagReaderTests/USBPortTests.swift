import Foundation
import Harness
import NDEF
import OrderedJSON
import PN532Sim
import TagCore
import TagKit
import Testing
import TestSupport

@testable import ReaderLibNFC
@testable import ReaderPCSC
@testable import TagReader

/// A made-up `/sys` and `/dev` under a private folder (`TAGROUTER_TEST_SYSTEM_ROOT`):
/// USB devices with their bus numbers and addresses, USB-serial adapters with their ttys.
final class MadeUpSystem {
    let root: String

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("tagrouter-sysfs-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root + "/dev", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/sys/bus/usb/devices", withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    /// A USB device in `port` at `bus`/`address`; with `tty`, a USB-serial adapter whose
    /// tty is `tty`, `/dev/<tty>` a symlink to `target` (a simulator's terminal).
    func plug(_ port: String, bus: Int, address: Int, tty: String? = nil, target: String? = nil) throws {
        let devices = root + "/sys/bus/usb/devices/"
        try FileManager.default.createDirectory(atPath: devices + port, withIntermediateDirectories: true)
        try "\(bus)\n".write(toFile: devices + port + "/busnum", atomically: true, encoding: .utf8)
        try "\(address)\n".write(toFile: devices + port + "/devnum", atomically: true, encoding: .utf8)
        guard let tty else { return }
        try FileManager.default.createDirectory(atPath: devices + port + ":1.0/" + tty, withIntermediateDirectories: true)
        if let target { try FileManager.default.createSymbolicLink(atPath: root + "/dev/" + tty, withDestinationPath: target) }
    }

    /// Takes every device out (before plugging them in again in another order).
    func unplugAll() throws {
        for folder in ["/sys/bus/usb/devices", "/dev"] {
            try FileManager.default.removeItem(atPath: root + folder)
            try FileManager.default.createDirectory(atPath: root + folder, withIntermediateDirectories: true)
        }
    }

    var ports: USBPorts { USBPorts(root: root) }
}

/// Readers named by their physical USB port (`device: usb-port:1-1.2`): the port
/// found from libnfc's bus/address, CCID's channel id, a serial adapter's tty.
@Suite(.serialized) struct USBPortTests {
    @Test func portsAreFoundFromBusAddressChannelIDAndTTY() throws {
        let system = try MadeUpSystem()
        try system.plug("1-1.2", bus: 1, address: 5)
        try system.plug("3-2", bus: 3, address: 17, tty: "ttyUSB0")
        try system.plug("1-1", bus: 1, address: 2)
        let ports = system.ports
        #expect(ports.port(bus: 1, address: 5) == "1-1.2")
        #expect(ports.port(ofConnstring: "pn53x_usb:001:005") == "1-1.2")
        #expect(ports.port(ofConnstring: "acr122_usb:003:017") == "3-2")
        #expect(ports.port(ofConnstring: "pn53x_usb:001:009") == nil)
        // CCID: 0x0020 (USB) << 16 | bus << 8 | address; a serial reader's channel (0x0001…) names no port.
        #expect(ports.port(channelID: 0x0020_0105) == "1-1.2")
        #expect(ports.port(channelID: 0x0001_0105) == nil)
        #expect(ports.device(at: "1-1.2").map { [$0.bus, $0.address] } == [1, 5])
        #expect(ports.serialDevice(at: "3-2") == system.root + "/dev/ttyUSB0")
        #expect(ports.serialDevice(at: "1-1.2") == nil)
        #expect(ports.port(ofConnstring: "pn532_uart:/dev/ttyUSB0:115200") == "3-2")
        #expect(ports.serialAdapters().map(\.port) == ["3-2"])
    }

    @Test func onlyPortNamesAreAccepted() {
        for name in ["1-1", "1-1.2", "3-2.4.1", "12-1.10"] { #expect(USBPortName.isValid(name), "\(name)") }
        for name in ["", "1", "1-", "-1", "1-1.", "1-1..2", "../1-1", "1-1/..", "1-1.2:1.0", "a-1", "usb1"] {
            #expect(!USBPortName.isValid(name), "\(name)")
        }
        #expect(USBPortDevice("usb-port:1-1.2")?.port == "1-1.2")
        #expect(USBPortDevice("usb-port:../../etc") == nil)
        #expect(PCSCDevice("pcsc:usb-port:1-1.3")?.port == "1-1.3")
        #expect(PCSCDevice("pcsc:usb-port:1-1.3")?.pattern == nil)
        #expect(USBPortName.parse("usb-port:x") == .failure(USBPortName.Invalid(name: "x")))
        #expect(USBPortName.parse("usb-port:1-1.3") == .success("1-1.3"))
        #expect(USBPortName.parse("pn532_uart:/dev/ttyUSB0") == nil)
    }

    /// Two identical PN532 boards on USB-serial adapters in ports 1-1.2 and 1-1.3.
    /// Plugged in the other order after a reboot, their ttys (and bus addresses)
    /// swap, and a `device:` by tty would swap the readers' names; by port each keeps its own.
    @Test func identicalReadersReplugedInTheOtherOrderKeepTheirNames() async throws {
        let left = try PN532Simulator(pacing: .none)
        defer { left.close() }
        let right = try PN532Simulator(pacing: .none)
        defer { right.close() }
        let system = try MadeUpSystem()
        let config = system.root + "/tagrouter.yaml"
        try """
            readers:
              - {name: left-door, device: "usb-port:1-1.2", exit_delay: 0s}
              - {name: right-door, device: "usb-port:1-1.3", exit_delay: 0s}
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let leftTag = try Type2Tag(.ntag215, uid: [0x04, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01], message: [])
        let rightTag = try Type2Tag(.ntag215, uid: [0x04, 0x02, 0x02, 0x02, 0x02, 0x02, 0x02], message: [])

        /// Watches both readers; each tag placed on its own board arrives named by its reader.
        func readersOfEachTag() async throws -> [String: String] {
            let watch = try RunningTool(
                BuiltProducts.tagrouter.path, ["watch", "--config", config],
                environment: ["LIBNFC_AUTO_SCAN": "false", USBPorts.testRootVariable: system.root])
            left.place(leftTag)
            right.place(rightTag)
            var readers: [String: String] = [:]
            for index in 0..<6 where readers.count < 2 {
                let event = try JSONValue.parse(try await watch.waitForStdout(lines: index + 1)[index].text)
                guard event["event"] == "tag.arrived", let uid = event.value(atPath: "tag.uid")?.stringValue else { continue }
                readers[uid] = event["reader"]?.stringValue
            }
            left.removeAll()
            right.removeAll()
            // Ended before the boards are plugged in again, so their locks are free for the next run.
            watch.signal(SIGINT)
            _ = try await watch.termination()
            return readers
        }

        try system.plug("1-1.2", bus: 1, address: 5, tty: "ttyUSB0", target: left.devicePath)
        try system.plug("1-1.3", bus: 1, address: 6, tty: "ttyUSB1", target: right.devicePath)
        let first = try await readersOfEachTag()
        #expect(first == ["04010101010101": "left-door", "04020202020202": "right-door"])

        // The right board plugged in first this time: it gets ttyUSB0 and the lower address.
        try system.unplugAll()
        try system.plug("1-1.3", bus: 1, address: 7, tty: "ttyUSB0", target: right.devicePath)
        try system.plug("1-1.2", bus: 1, address: 8, tty: "ttyUSB1", target: left.devicePath)
        let second = try await readersOfEachTag()
        #expect(second == ["04010101010101": "left-door", "04020202020202": "right-door"])
    }

    @Test func devicesListsSerialAdaptersByPortWithoutOpeningThem() async throws {
        let board = try PN532Simulator(pacing: .none)
        defer { board.close() }
        let system = try MadeUpSystem()
        try system.plug("1-1.4", bus: 1, address: 9, tty: "ttyUSB0", target: board.devicePath)
        let run = try await ToolRun(
            BuiltProducts.tagrouter.path, ["devices"],
            environment: ["LIBNFC_AUTO_SCAN": "false", "PCSCLITE_CSOCK_NAME": "/nonexistent/pcscd.comm", USBPorts.testRootVariable: system.root])
        #expect(run.stdout.contains("\(system.root)/dev/ttyUSB0\tnot probed\n  USB port 1-1.4\tdevice: \"usb-port:1-1.4\"\n"), "\(run.stdout)")
        // Listed from sysfs only: not one byte reached the board.
        #expect(board.counters.bytesIn == 0)
    }
}

import FoundationEssentials
import TagReader

/// `tagrouter devices`: list NFC readers and explain why one cannot be opened
enum DevicesCommand: Command {
    static let name = "devices"
    static let summary = "list NFC readers and explain why one cannot be opened"
    static let about = """
        Usage: tagrouter devices [--device CONNSTRING …]

        Lists the readers libnfc finds (USB readers, and serial readers named in
        LIBNFC_DEVICE or /etc/nfc/libnfc.conf), opening each once, and the PC/SC
        readers pcscd has (device pcsc:<name>; ACR1252U, uTrust, Omnikey). Under a
        reader in a USB socket: its port and the device: line naming it by that port
        (usb-port:1-1.2, pcsc:usb-port:1-1.2), which identical readers keep across
        replugs and reboots; USB-serial adapters are listed by port, never opened.
        When none is found or one fails to open, says which cause applies on this
        machine: kernel pn533/pn533_usb/nfc modules, pcscd, device-node permissions,
        libnfc.conf / LIBNFC_* settings. Exit status 1 when no reader opens.
        """
    static let deviceOption = CommandOption("--device", value: "CONNSTRING", help: "a connstring to try as well, e.g. pn532_uart:/dev/ttyUSB0 (a path may be\na symlink); repeatable")
    static let options = [deviceOption]

    static func run(_ arguments: Arguments) async throws(CLIError) {
        var arguments = arguments
        let extra = try arguments.values(of: deviceOption)
        try arguments.finish()
        let probes = DeviceProbe.probeAll(extra: extra)
        let ports = USBPorts()
        print("libnfc \(DeviceProbe.libnfcVersion)")
        for probe in probes {
            print("\(probe.connstring)\t\(probe.name ?? probe.busy ?? "FAILED to open")")
            if let port = ports.port(ofConnstring: probe.connstring) { printPort(port, device: "usb-port:\(port)") }
        }
        let pcsc = PCSCDevice.listReadersWithPorts()
        switch pcsc {
        case .success(let readers):
            print("pcscd: \(readers.count) reader\(readers.count == 1 ? "" : "s")")
            for reader in readers {
                print("pcsc:\(reader.name)\tPC/SC reader")
                if let port = reader.port { printPort(port, device: "pcsc:usb-port:\(port)") }
            }
        case .failure(let error):
            print("pcscd: not reachable (\(error))")
        }
        let listed = Set(probes.compactMap { ports.port(ofConnstring: $0.connstring) })
        let adapters = ports.serialAdapters().filter { !listed.contains($0.port) }
        if !adapters.isEmpty {
            // Listed from sysfs, never opened: a serial port the config does not name is not probed.
            print("USB-serial adapters (not opened; a PN532 board on one is read with the device shown):")
            for adapter in adapters { print("\(adapter.device)\tnot probed"); printPort(adapter.port, device: "usb-port:\(adapter.port)") }
        }
        let pcscReaders = (try? pcsc.get())?.map(\.name) ?? []
        if probes.isEmpty && pcscReaders.isEmpty { print("no reader found") }
        let failed = probes.filter { !$0.opened && $0.busy == nil }.map(\.connstring)
        guard probes.isEmpty || !failed.isEmpty else { return }
        let causes = DeviceDiagnosis().causes(failedDevices: failed)
        if !causes.isEmpty {
            print("\nWhat applies on this machine:")
            for cause in causes { print("- \(cause)") }
        }
        if !probes.contains(where: \.opened) && pcscReaders.isEmpty { throw .runtime("no reader could be opened") }
    }

    /// The line under a reader that sits in a USB port: the port, and the `device:` that keeps naming it there.
    private static func printPort(_ port: String, device: String) {
        print("  USB port \(port)\tdevice: \"\(device)\"")
    }
}

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
        readers pcscd has (device pcsc:<name>; ACR1252U, uTrust, Omnikey).
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
        print("libnfc \(DeviceProbe.libnfcVersion)")
        for probe in probes {
            print("\(probe.connstring)\t\(probe.name ?? probe.busy ?? "FAILED to open")")
        }
        let pcsc = PCSCDevice.listReaders()
        switch pcsc {
        case .success(let readers):
            print("pcscd: \(readers.count) reader\(readers.count == 1 ? "" : "s")")
            for reader in readers { print("pcsc:\(reader)\tPC/SC reader") }
        case .failure(let error):
            print("pcscd: not reachable (\(error))")
        }
        let pcscReaders = (try? pcsc.get()) ?? []
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
}

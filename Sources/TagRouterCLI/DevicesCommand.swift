import FoundationEssentials
import TagReader
import TagRouterDaemon

/// `tagrouter devices`: list NFC readers and explain why one cannot be opened
enum DevicesCommand: Command {
    static let name = "devices"
    static let summary = "list NFC readers and explain why one cannot be opened"
    static let about = """
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
    static let deviceOption = ValueOption<[String]>(
        "--device", placeholder: "CONNSTRING", help: "a connstring to try as well, e.g. pn532_uart:/dev/ttyUSB0 (a path may be\na symlink); repeatable")
    static let options: [any DeclaredOption] = [deviceOption]

    static func run(_ arguments: Arguments) async throws(CLIError) {
        var arguments = arguments
        let extra = try arguments.value(of: deviceOption)
        try arguments.finish()
        let drivers = BuiltinPlugins.readers
        let listings = drivers.drivers.map { driver in
            driver.listDevices(extra: extra.filter { ObjectIdentifier(drivers.driver(for: $0)) == ObjectIdentifier(driver) })
        }
        for line in listings.flatMap(\.lines) { print(line) }
        if listings.allSatisfy({ $0.found == 0 }) { print("no reader found") }
        let causes = listings.flatMap(\.causes)
        if !causes.isEmpty {
            print("\nWhat applies on this machine:")
            for cause in causes { print("- \(cause)") }
        }
        if listings.allSatisfy({ $0.usable == 0 }) { throw .runtime("no reader could be opened") }
    }
}

import CNFC

/// One reader libnfc knows of, and whether it opens: what `tagrouter devices` prints.
public struct DeviceProbe: Sendable, Equatable {
    public var connstring: String
    /// The device's name and chip (`ACS / ACR122U PICC Interface, PN532 v1.6`), nil when it failed to open.
    public var name: String?

    public var opened: Bool { name != nil }

    /// Every device libnfc lists (environment, `libnfc.conf`, USB scan) plus
    /// `extra` connstrings, each opened once and closed.
    public static func probeAll(extra: [String] = []) -> [DeviceProbe] {
        guard let context = NFCContext() else { return [] }
        var connstrings = context.listDevices()
        for connstring in extra where !connstrings.contains(connstring) { connstrings.append(connstring) }
        return connstrings.map { connstring in
            DeviceProbe(connstring: connstring, name: context.open(connstring).map(Self.describe))
        }
    }

    /// Opens `connstring` once and closes it; `auto` is the first device libnfc lists that opens
    /// (nil when none does).
    public static func probe(_ connstring: String) -> DeviceProbe? {
        guard connstring != "auto" else { return probeAll().first(where: \.opened) }
        guard let context = NFCContext() else { return DeviceProbe(connstring: connstring, name: nil) }
        return DeviceProbe(connstring: connstring, name: context.open(connstring).map(Self.describe))
    }

    private static func describe(_ device: NFCDevice) -> String {
        let name = device.name == device.connstring ? nil : device.name
        let parts = [name, device.chip].compactMap { $0 }
        return parts.isEmpty ? "opened" : parts.joined(separator: ", ")
    }

    /// The libnfc version this was built against.
    public static var libnfcVersion: String { String(cString: nfc_version()) }
}

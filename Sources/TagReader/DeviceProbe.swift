import CNFC

/// One reader libnfc knows of, and whether it opens: what `tagrouter devices` prints.
public struct DeviceProbe: Sendable, Equatable {
    public var connstring: String
    /// The device's name (`pn532_uart:… PN532 v1.6 (0x07)`), nil when it failed to open.
    public var name: String?

    public var opened: Bool { name != nil }

    /// Every device libnfc lists (environment, `libnfc.conf`, USB scan) plus
    /// `extra` connstrings, each opened once and closed.
    public static func probeAll(extra: [String] = []) -> [DeviceProbe] {
        guard let context = NFCContext() else { return [] }
        var connstrings = context.listDevices()
        for connstring in extra where !connstrings.contains(connstring) { connstrings.append(connstring) }
        return connstrings.map { connstring in
            DeviceProbe(connstring: connstring, name: context.open(connstring)?.name)
        }
    }

    /// The libnfc version this was built against.
    public static var libnfcVersion: String { String(cString: nfc_version()) }
}

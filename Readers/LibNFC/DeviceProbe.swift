import TagReader
import CNFC

/// One reader libnfc knows of, and whether it opens: what `tagrouter devices` prints.
public struct DeviceProbe: Sendable, Equatable {
    public var connstring: String
    /// The device's name and chip (`ACS / ACR122U PICC Interface, PN532 v1.6`), nil when it failed to open.
    public var name: String?
    /// Why it was left closed: another process holds it (`device … is in use by pid N`).
    public var busy: String?

    public init(connstring: String, name: String? = nil, busy: String? = nil) {
        self.connstring = connstring
        self.name = name
        self.busy = busy
    }

    public var opened: Bool { name != nil }

    /// Every device libnfc lists (environment, `libnfc.conf`, USB scan) plus
    /// `extra` connstrings, each opened once and closed.
    public static func probeAll(extra: [String] = []) -> [DeviceProbe] {
        guard let context = NFCContext.shared else { return [] }
        var connstrings = context.listDevices()
        for connstring in extra where !connstrings.contains(connstring) { connstrings.append(connstring) }
        return connstrings.map { probe($0, in: context) }
    }

    /// Opens `connstring` once and closes it; `auto` is the first device libnfc lists
    /// that opens, else one another process holds (nil when there is neither).
    public static func probe(_ connstring: String) -> DeviceProbe? {
        guard connstring != "auto" else {
            let all = probeAll()
            return all.first(where: \.opened) ?? all.first { $0.busy != nil }
        }
        guard let context = NFCContext.shared else { return DeviceProbe(connstring: connstring) }
        return probe(connstring, in: context)
    }

    private static func probe(_ connstring: String, in context: NFCContext) -> DeviceProbe {
        switch context.open(connstring) {
        case .success(let device): DeviceProbe(connstring: connstring, name: describe(device))
        case .failure(.busy(let holder)): DeviceProbe(connstring: connstring, busy: holder.description)
        case .failure(.notOpened): DeviceProbe(connstring: connstring)
        }
    }

    private static func describe(_ device: NFCDevice) -> String {
        let name = device.name == device.connstring ? nil : device.name
        let parts = [name, device.chip].compactMap { $0 }
        return parts.isEmpty ? "opened" : parts.joined(separator: ", ")
    }

    /// The libnfc version this was built against.
    public static var libnfcVersion: String { String(cString: nfc_version()) }
}

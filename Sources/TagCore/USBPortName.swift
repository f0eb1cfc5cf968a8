/// The name Linux's sysfs gives a physical USB port: the bus number, a dash, then
/// the port on the root hub and on each hub below it, joined by dots (`1-1.2`,
/// `3-2.4.1`; at most 7 tiers). A `device:` of `usb-port:<name>` or
/// `pcsc:usb-port:<name>` names a reader by it.
public enum USBPortName {
    /// What starts a `device:` that names a port (after `pcsc:` for a PC/SC reader).
    public static let devicePrefix = "usb-port:"

    /// Whether `name` is a port name: only digits, one dash, dots — never a path.
    public static func isValid(_ name: String) -> Bool {
        let parts = name.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[0].count <= 3, parts[0].allSatisfy(isDigit) else { return false }
        let chain = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        return chain.count <= 7 && chain.allSatisfy { !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(isDigit) }
    }

    /// The port a `device:` names (`usb-port:1-1.2`, `pcsc:usb-port:1-1.2`), nil when it names
    /// none; `.invalid` when it starts like one but the name is not a port name.
    public static func named(by device: String) -> Result<String, Invalid>? {
        let rest = device.hasPrefix(ReaderConfig.pcscPrefix) ? String(device.dropFirst(ReaderConfig.pcscPrefix.count)) : device
        guard rest.hasPrefix(devicePrefix) else { return nil }
        let name = String(rest.dropFirst(devicePrefix.count))
        return isValid(name) ? .success(name) : .failure(Invalid(name: name))
    }

    private static func isDigit(_ character: Character) -> Bool { ("0"..."9").contains(character) }

    /// A `usb-port:` whose name is not a sysfs port name.
    public struct Invalid: Error, Equatable, CustomStringConvertible {
        public let name: String
        public var description: String {
            "'\(name)' is not a USB port name: bus, dash, ports joined by dots, as `tagrouter devices` prints them (`1-1.2`)"
        }
    }
}

/// The name Linux's sysfs gives a physical USB port: the bus number, a dash, then
/// the port on the root hub and on each hub below it, joined by dots (`1-1.2`,
/// `3-2.4.1`; at most 7 tiers). A driver's `device:` names a reader by it with
/// `usb-port:<name>` after its scheme (libnfc: `usb-port:1-1.2`, PC/SC: `pcsc:usb-port:1-1.2`).
public enum USBPortName {
    /// What starts the part of a `device:` that names a port.
    public static let devicePrefix = "usb-port:"

    /// Whether `name` is a port name: only digits, one dash, dots — never a path.
    public static func isValid(_ name: String) -> Bool {
        let parts = name.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[0].count <= 3, parts[0].allSatisfy(isDigit) else { return false }
        let chain = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        return chain.count <= 7 && chain.allSatisfy { !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(isDigit) }
    }

    /// The port `text` names when it starts with `usb-port:` (what follows a driver's
    /// scheme: `usb-port:1-1.2`), nil when it does not start so; `.invalid` when
    /// the name after it is not a port name.
    public static func parse(_ text: String) -> Result<String, Invalid>? {
        guard text.hasPrefix(devicePrefix) else { return nil }
        let name = String(text.dropFirst(devicePrefix.count))
        return isValid(name) ? .success(name) : .failure(Invalid(name: name))
    }

    private static func isDigit(_ character: Character) -> Bool { ("0"..."9").contains(character) }

    /// A `usb-port:` whose name is not a sysfs port name.
    public struct Invalid: Error, Equatable, CustomStringConvertible {
        public let name: String

        public init(name: String) { self.name = name }
        public var description: String {
            "'\(name)' is not a USB port name: bus, dash, ports joined by dots, as `tagrouter devices` prints them (`1-1.2`)"
        }
    }
}

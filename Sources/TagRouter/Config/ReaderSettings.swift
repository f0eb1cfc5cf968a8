/// One entry of the `readers:` section, as the reader loop needs it.
public struct ReaderSettings: Sendable, Equatable {
    /// The name events carry in `reader`.
    public var name: String
    /// A libnfc connstring (`pn532_uart:/dev/ttyUSB0`) or `auto`.
    public var device: String
    /// The same UID arriving again within this is suppressed.
    public var cooldown: Duration
    /// A tag must be gone this long before it counts as removed.
    public var exitDelay: Duration
    /// A tag already on the reader when it connects does not fire.
    public var ignoreOnConnect: Bool

    public init(name: String, device: String = "auto", cooldown: Duration = .seconds(1), exitDelay: Duration = .milliseconds(500), ignoreOnConnect: Bool = false) {
        self.name = name
        self.device = device
        self.cooldown = cooldown
        self.exitDelay = exitDelay
        self.ignoreOnConnect = ignoreOnConnect
    }

    /// The options of one reader.
    public static let spec = OptionSpec("one NFC reader", [
        Option("name", .string, default: "reader", "the name events carry in `reader`; unique"),
        Option("device", .string, default: "auto", "a libnfc connstring such as `pn532_uart:/dev/ttyUSB0`, or `auto` for the first reader found"),
        Option("cooldown", .duration, default: "1s", "the same UID arriving again within this is ignored"),
        Option("exit_delay", .duration, default: "500ms", "a tag must be gone this long before `tag.removed` fires"),
        Option("ignore_on_connect", .bool, default: "false", "a tag already on the reader when it connects does not fire"),
    ])

    /// Reads a validated reader entry.
    public init(_ value: ConfigValue) {
        self.init(
            name: value.string("name") ?? "reader", device: value.string("device") ?? "auto",
            cooldown: value.duration("cooldown") ?? .seconds(1), exitDelay: value.duration("exit_delay") ?? .milliseconds(500),
            ignoreOnConnect: value.bool("ignore_on_connect") ?? false)
    }
}

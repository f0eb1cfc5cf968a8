/// One entry of the `readers:` section, as the reader loop needs it (the
/// fields of TagReader's `ReaderConfig`, so `run` maps one onto the other).
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
    /// How often a held tag is checked for presence (and the field polled with `list-passive`).
    public var pollInterval: Duration
    /// `auto-poll` (the PN532 polls, no CPU while waiting) or `list-passive` (any libnfc driver).
    public var polling: String
    /// A reader that makes no progress for this long is reopened.
    public var watchdog: Duration

    public init(
        name: String, device: String = "auto", cooldown: Duration = .seconds(1), exitDelay: Duration = .milliseconds(500),
        ignoreOnConnect: Bool = false, pollInterval: Duration = .milliseconds(100), polling: String = "auto-poll", watchdog: Duration = .seconds(10)
    ) {
        self.name = name
        self.device = device
        self.cooldown = cooldown
        self.exitDelay = exitDelay
        self.ignoreOnConnect = ignoreOnConnect
        self.pollInterval = pollInterval
        self.polling = polling
        self.watchdog = watchdog
    }

    /// The options of one reader.
    public static let spec = OptionSpec("one NFC reader", [
        Option("name", .string, default: "reader", "the name events carry in `reader`; unique"),
        Option("device", .string, default: "auto", "a libnfc connstring such as `pn532_uart:/dev/ttyUSB0`, or `auto` for the first reader found"),
        Option("cooldown", .duration, default: "1s", "the same UID arriving again within this is ignored"),
        Option("exit_delay", .duration, default: "500ms", "a tag must be gone this long before `tag.removed` fires"),
        Option("ignore_on_connect", .bool, default: "false", "a tag already on the reader when it connects does not fire"),
        Option("poll_interval", .duration, default: "100ms", "how often a held tag is checked (and the field polled with `list-passive`)"),
        Option("polling", .choice(["auto-poll", "list-passive"]), default: "auto-poll", "`auto-poll`: the PN532 polls, no CPU while waiting; `list-passive`: works with every libnfc driver"),
        Option("watchdog", .duration, default: "10s", "a reader that makes no progress this long is reopened"),
    ])

    /// Reads a validated reader entry.
    public init(_ value: ConfigValue) {
        let defaults = ReaderSettings(name: "reader")
        self.init(
            name: value.string("name") ?? defaults.name, device: value.string("device") ?? defaults.device,
            cooldown: value.duration("cooldown") ?? defaults.cooldown, exitDelay: value.duration("exit_delay") ?? defaults.exitDelay,
            ignoreOnConnect: value.bool("ignore_on_connect") ?? defaults.ignoreOnConnect,
            pollInterval: value.duration("poll_interval") ?? defaults.pollInterval, polling: value.string("polling") ?? defaults.polling,
            watchdog: value.duration("watchdog") ?? defaults.watchdog)
    }
}

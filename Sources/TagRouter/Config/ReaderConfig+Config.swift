import TagCore

/// One entry of the `readers:` section is TagCore's `ReaderConfig`: its keys,
/// defaults and meaning are declared here once, for validation and the README.
extension ReaderConfig {
    /// The options of one reader.
    public static let spec = OptionSpec("one NFC reader", [
        Option("name", .string, default: "reader", "the name events carry in `reader`; unique"),
        Option("device", .string, default: "auto", "which reader, as its driver names it (the reader kinds' sections below)"),
        Option("cooldown", .duration, default: "1s", "the same UID arriving again within this is ignored"),
        Option("exit_delay", .duration, default: "500ms", "a tag must be gone this long before `tag.removed` fires"),
        Option("ignore_on_connect", .bool, default: "false", "a tag already on the reader when it connects does not fire"),
        Option("hold", .duration, "a tag that stays this long fires `tag.held`, one lifted sooner `tag.tapped` (off when not set)"),
        Option("poll_interval", .duration, default: "100ms", "how often a held tag is checked (and the field polled with `list-passive`)"),
        Option(
            "polling", .choice(ReaderConfig.Polling.allCases.map(\.rawValue)), default: "auto-poll",
            "libnfc readers: `auto-poll`: the PN532 polls, no CPU while waiting; `list-passive`: works with every libnfc driver; `fast`: a tag seen within milliseconds, for steady bus traffic and a little CPU (docs/reader.md)"),
        Option("watchdog", .duration, default: "10s", "a reader that makes no progress this long is reopened"),
        Option(
            "if_busy", .choice(ReaderConfig.BusyPolicy.allCases.map(\.rawValue)), default: "wait",
            "when another process holds the device: `wait` for it (logged once), or `exit`: end this reader with a `reader.error`"),
        Option("feedback", .section(ReaderFeedback.spec), "what the reader's LEDs and buzzer show, and what this machine plays, on a tap and its outcome (docs/feedback.md)"),
        Option("beep_on_detect", .bool, default: "true", "`false` turns the reader's own detection beep off (ACR122U, ACR1252U, ACR1552U), so the only beep is tagrouter's"),
        Option(
            "originality_check", .choice(ReaderConfig.SignatureReading.allCases.map(\.rawValue)), default: "auto",
            "ask an arriving NTAG 21x / Ultralight EV1 for its NXP originality signature (`tag.genuine`, ~8 ms a tap): `auto` when the config uses it (a route matching `genuine`, a template naming `tag.genuine` or `tag.signature`, a tag entry with `require_genuine`), `always` (a node whose events a central router checks), or `never` (docs/secure-tags.md)"),
    ])

    /// The options of one reader as a config with these reader `kinds` has them: `device`
    /// says how each kind writes one, and each kind's own options follow the common ones.
    public static func spec(kinds: ReaderKinds) -> OptionSpec {
        var common = spec
        if !kinds.kinds.isEmpty, let index = common.options.firstIndex(where: { $0.name == "device" }) {
            common.options[index].meaning = kinds.deviceHelp
        }
        return common.adding(kinds.options)
    }

    /// A reader with the spec's default for every setting but its name and device
    /// (the one-shot tools' readers, before their flags).
    public static func withDefaults(name: String, device: String) -> ReaderConfig {
        var reader = ReaderConfig(ConfigValue.defaults(of: spec, path: "readers[]"))
        reader.name = name
        reader.device = device
        return reader
    }

    /// Reads a validated reader entry as `init` does, and checks what only the
    /// whole entry tells: the `feedback.sound` files and player, then what its
    /// kind (`kinds.kind(for: device)`) reads and checks itself; a key only
    /// another kind reads is a warning.
    static func load(_ value: ConfigValue, kinds: ReaderKinds, _ errors: inout ConfigErrors) -> ReaderConfig {
        var reader = ReaderConfig(value)
        let feedback = value.section("feedback")
        if feedback.has("sound") { reader.feedback.sound = FeedbackSound.load(feedback.section("sound"), &errors) }
        guard let kind = kinds.kind(for: reader.device) else { return reader }
        kind.load(value, into: &reader, &errors)
        for other in kinds.kinds where ObjectIdentifier(other) != ObjectIdentifier(kind) {
            for option in other.options where value.has(option.name) && kind.options.allSatisfy({ $0.name != option.name }) {
                errors.append(ConfigError(
                    mark: value.node[option.name]?.mark ?? value.mark, path: "\(value.path).\(option.name)",
                    message: "applies to \(other.title) readers; reader '\(reader.name)' is a \(kind.title) reader (\(reader.device)), so it changes nothing here",
                    isWarning: true))
            }
        }
        return reader
    }

    /// Reads a validated reader entry; absent keys take the spec's defaults.
    public init(_ value: ConfigValue) {
        self.init(
            name: value.string("name"), device: value.string("device"), cooldown: value.duration("cooldown"),
            exitDelay: value.duration("exit_delay"), ignoreOnConnect: value.bool("ignore_on_connect"), hold: value.optionalDuration("hold"),
            pollInterval: value.duration("poll_interval"), polling: value.choice("polling"),
            watchdog: value.duration("watchdog"), ifBusy: value.choice("if_busy"))
        feedback = ReaderFeedback(value.section("feedback"))
        beepOnDetect = value.bool("beep_on_detect")
        readsSignature = value.choice("originality_check", as: SignatureReading.self) != .never
    }
}

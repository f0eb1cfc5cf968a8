import TagCore

/// One entry of the `readers:` section is TagCore's `ReaderConfig`: its keys,
/// defaults and meaning are declared here once, for validation and the README.
extension ReaderConfig {
    /// The options of one reader.
    public static let spec = OptionSpec("one NFC reader", [
        Option("name", .string, default: "reader", "the name events carry in `reader`; unique"),
        Option("device", .string, default: "auto", "a libnfc connstring such as `pn532_uart:/dev/ttyUSB0`, `auto` for the first libnfc reader found, or a PC/SC reader through pcscd: `pcsc:auto` (the first) or `pcsc:<name glob>` such as `pcsc:ACS ACR1252*`; `usb-port:1-1.2` (libnfc) or `pcsc:usb-port:1-1.2` names a reader by the USB port it is plugged into, as `tagrouter devices` prints it, so identical readers keep their names"),
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
    ])

    /// A reader with the spec's default for every setting but its name and device
    /// (the one-shot tools' readers, before their flags).
    public static func withDefaults(name: String, device: String) -> ReaderConfig {
        var reader = ReaderConfig(ConfigValue.defaults(of: spec, path: "readers[]"))
        reader.name = name
        reader.device = device
        return reader
    }

    /// Reads a validated reader entry as `init` does, and checks what only the
    /// whole entry tells: the `feedback.sound` files and player, what a libnfc
    /// reader is asked and cannot do — LED patterns, silencing its detection beep —
    /// and a `polling` on a PC/SC reader, which pcscd watches itself (warnings).
    static func load(_ value: ConfigValue, _ errors: inout ConfigErrors) -> ReaderConfig {
        var reader = ReaderConfig(value)
        let feedback = value.section("feedback")
        if feedback.has("sound") { reader.feedback.sound = FeedbackSound.load(feedback.section("sound"), &errors) }
        if case .failure(let invalid)? = USBPortName.named(by: reader.device) {
            errors.append(ConfigError(mark: value.node["device"]?.mark ?? value.mark, path: "\(value.path).device", message: invalid.description))
        }
        guard !reader.isPCSC else {
            // SCardGetStatusChange returns as soon as pcscd sees a card: no polling makes that sooner.
            if value.has("polling") {
                errors.append(ConfigError(
                    mark: value.node["polling"]?.mark ?? value.mark, path: "\(value.path).polling",
                    message: "applies to libnfc readers; pcscd watches a PC/SC reader's slot and tells tagrouter at once, so it changes nothing here (docs/reader.md)",
                    isWarning: true))
            }
            return reader
        }
        if let key = ReaderFeedback.patternKeys.first(where: feedback.has) {
            errors.append(reader.libnfcCannot("show LED patterns", at: feedback, key))
        }
        if value.has("beep_on_detect"), !reader.beepOnDetect {
            errors.append(reader.libnfcCannot("turn its detection beep off", at: value, "beep_on_detect"))
        }
        return reader
    }

    /// The warning that this libnfc reader cannot `what`, at `key` of `section`.
    private func libnfcCannot(_ what: String, at section: ConfigValue, _ key: String) -> ConfigError {
        ConfigError(
            mark: section.node[key]?.mark ?? section.mark, path: "\(section.path).\(key)",
            message: "reader '\(name)' is a libnfc reader (\(device)), and libnfc has no LED or buzzer call: tagrouter cannot \(what) there; "
                + "give it `feedback.sound` files to hear the outcome on this machine, or drive an ACR122U through pcscd (`device: \"pcsc:ACS ACR122U*\"`, docs/feedback.md)",
            isWarning: true)
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
    }
}

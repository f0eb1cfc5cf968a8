import TagCore

/// `readers[].feedback` is TagCore's `ReaderFeedback`: its keys and defaults
/// (green and one beep on success, red and two beeps otherwise, nothing extra
/// on arrival) are declared here once.
extension ReaderFeedback {
    /// The options of `readers[].feedback`.
    public static let spec = OptionSpec("a reader's feedback: LED/buzzer patterns and the host's sound", [
        Option("model", .choice(Model.allCases.map(\.rawValue)), default: "auto", "the reader's command set: `auto` from its PC/SC name, `acr122u`, `acr1252u`, `acr1552u`, or `none`"),
        Option("arrival", .section(patternSpec("a tag arrived, shown before routing", color: "off", blinks: "0", on: "100ms")), "shown at once when a tag arrives"),
        Option("success", .section(patternSpec("every action delivered", color: "green", blinks: "1", on: "200ms")), "every action of the matched routes was delivered"),
        Option("failure", .section(patternSpec("an action failed", color: "red", blinks: "2", on: "100ms")), "an action failed, was dropped, or was kept in the spool for later"),
        Option("no_match", .section(patternSpec("no route matched", color: "red", blinks: "2", on: "100ms")), "no route matched the tag"),
        Option("refused", .section(patternSpec("refused by a rule", color: "red", blinks: "2", on: "100ms")), "a matched route asks `known: false` and the tag is not in `tags:`"),
        Option("sound", .section(FeedbackSound.spec), "a sound file per moment, played on this machine for any reader, libnfc ones too (docs/feedback.md)"),
    ])

    /// The moments' LED/buzzer keys, which only PC/SC readers of a known model show.
    package static var patternKeys: [String] { ["model"] + Moment.allCases.map(\.rawValue) }

    private static func patternSpec(_ summary: String, color: String, blinks: String, on: String) -> OptionSpec {
        OptionSpec(summary, [
            Option("color", .choice(FeedbackPattern.Color.allCases.map(\.rawValue)), default: color, "the LED lit while on"),
            Option("blinks", .int(0...20), default: blinks, "how many times it lights (and beeps); 0 shows nothing"),
            Option("on", .duration, default: on, "how long each blink (and beep) lasts"),
            Option("off", .duration, default: "100ms", "the pause between blinks"),
            Option("beep", .bool, default: blinks == "0" ? "false" : "true", "whether the buzzer sounds with each blink"),
        ])
    }

    /// Reads a validated `feedback` section; absent keys take the spec's defaults. The sound is
    /// read by `ReaderConfig.load`, which checks its files.
    init(_ value: ConfigValue) {
        var patterns: [Moment: FeedbackPattern] = [:]
        for moment in Moment.allCases {
            let section = value.section(moment.rawValue)
            patterns[moment] = FeedbackPattern(
                color: section.choice("color"), blinks: section.int("blinks"), on: section.duration("on"), off: section.duration("off"),
                beep: section.bool("beep"))
        }
        self.init(model: value.choice("model"), patterns: patterns)
    }
}

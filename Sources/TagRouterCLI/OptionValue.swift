import NDEF
import SystemKit
import TagCore
import TagRouter

/// A type a command-line option's value can have — our small version of
/// swift-argument-parser's `ExpressibleByArgument`: read from the text the user
/// typed, written back in the same form (a default in `--help` is the value's own
/// text, so help cannot show a default the code does not use), and, for a short
/// list of values, the list itself (shown, completed, suggested after a typo).
protocol OptionValue: Sendable, Equatable {
    /// The value `text` spells; nil when it is none (`Arguments` then names the option and the text).
    init?(argument text: String)
    /// The value as a user types it: `500ms`, `wait`, `04a224b2c35e80`.
    var argumentText: String { get }
    /// What a value of this type is, after "takes": `a duration such as 500ms, 30s or 1m`.
    static var expectation: String { get }
    /// The value's name in usage and help unless the option names it (`DURATION`).
    static var placeholder: String { get }
    /// Every value there is, when they are few; empty when the value is free.
    static var choices: [String] { get }
    /// Why `text` is not a value, when the type can say more than `expectation` (nil: it cannot).
    static func problem(with text: String) -> String?
}

extension OptionValue {
    static var choices: [String] { [] }
    static func problem(with text: String) -> String? { nil }
    static var expectation: String { Self.choices.spelledAsList }
}

/// A value among a few named cases: its raw values are the choices.
extension OptionValue where Self: CaseIterable & RawRepresentable, RawValue == String {
    init?(argument text: String) { self.init(rawValue: text) }
    var argumentText: String { rawValue }
    static var choices: [String] { allCases.map(\.rawValue) }
    static var placeholder: String { "MODE" }
}

extension String: OptionValue {
    init?(argument text: String) { self = text }
    var argumentText: String { self }
    static var expectation: String { "text" }
    static var placeholder: String { "VALUE" }
}

extension Int: OptionValue {
    init?(argument text: String) { self.init(text) }
    var argumentText: String { String(self) }
    static var expectation: String { "a whole number" }
    static var placeholder: String { "N" }
}

extension UInt16: OptionValue {
    init?(argument text: String) { self.init(text) }
    var argumentText: String { String(self) }
    static var expectation: String { "a number from 0 to 65535" }
    static var placeholder: String { "N" }
}

/// Durations read as the config writes them (`500ms`, `30s`, `1m30s`); a bare
/// number is seconds, as these options took before (`--timeout 2.5`).
extension Duration: OptionValue {
    init?(argument text: String) {
        if let duration = Duration(configText: text) {
            self = duration
        } else if Double(text) != nil, let seconds = Duration(configText: text + "s") {
            self = seconds
        } else {
            return nil
        }
    }

    var argumentText: String { configText }
    static var expectation: String { "a duration such as 500ms, 30s or 1m (a bare number is seconds)" }
    static var placeholder: String { "DURATION" }
}

extension TagUID: OptionValue {
    init?(argument text: String) { self.init(text) }
    var argumentText: String { hex }
    static var expectation: String { "a tag UID in hex (04a224b2c35e80, 04:A2:24:…)" }
    static func problem(with text: String) -> String? { TagUID.problem(text) }
    static var placeholder: String { "UID" }
}

extension ReaderConfig.Polling: OptionValue {}
extension ReaderConfig.BusyPolicy: OptionValue {}
extension Log.Format: OptionValue {}

extension TagEvent.Kind: OptionValue {
    static var placeholder: String { "KIND" }
}

extension Log.Level: OptionValue {
    init?(argument text: String) { self.init(name: text) }
    var argumentText: String { name }
    static var choices: [String] { allCases.map(\.name) }
    static var placeholder: String { "LEVEL" }
}

/// Named as the tool's users know them: `ultralight`, not `mifare-ultralight`.
extension Type2TagType: OptionValue {
    init?(argument text: String) { self.init(name: text) }
    var argumentText: String { self == .ultralight ? "ultralight" : rawValue }
    static var choices: [String] { allCases.map(\.argumentText) }
    static var placeholder: String { "TAG" }
}

extension [String] {
    /// `a, b or c`: a list in a sentence.
    var spelledAsList: String {
        count < 2 ? joined() : dropLast().joined(separator: ", ") + " or " + last!
    }
}

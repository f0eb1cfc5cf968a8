import TagCore
import TagRouter

/// A keyboard-wedge reader's own settings (its `readers:` keys beside every reader's).
struct KeyboardSettings: DriverSettingsValue, Equatable {
    var format = CardNumberFormat(notation: .decimal, byteOrder: .asTyped)
    /// The longest pause between two keys of one card number.
    var keyGap: Duration = .milliseconds(100)

    static let options = [
        Option(
            "id_format", .choice(CardNumberFormat.Notation.allCases.map(\.rawValue)), default: "decimal",
            "keyboard readers: what the reader types: `decimal` (10 digits), `8h10d` (3 + 5 digits, Wiegand 26 style) or `hex` (docs/reader.md)"),
        Option(
            "id_byte_order", .choice(CardNumberFormat.ByteOrder.allCases.map(\.rawValue)), default: "as-typed",
            "keyboard readers: `reversed` when the reader types the UID's bytes last first, so `uid` matches a PN532's or PC/SC reader's"),
        Option(
            "key_gap", .duration, default: "100ms",
            "keyboard readers: keys further apart are not one card number (a person typing); the pause that ends a number when the reader types no Enter"),
    ]

    init() {}

    /// The settings of a validated `readers:` entry.
    init(_ value: ConfigValue) {
        format = CardNumberFormat(notation: value.choice("id_format"), byteOrder: value.choice("id_byte_order"))
        keyGap = value.duration("key_gap")
    }
}

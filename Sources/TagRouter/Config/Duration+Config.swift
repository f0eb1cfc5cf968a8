import FoundationEssentials

extension Duration {
    /// Parses a config duration: a number with a unit (`ms`, `s`, `m`, `h`),
    /// several in a row (`1m30s`), decimals (`1.5s`), or a bare `0`.
    /// Nil when the text is anything else, or longer than `longestConfigDuration`.
    public init?(configText text: String) {
        let trimmed = text.trimmingWhitespace()
        if trimmed == "0" {
            self = .zero
            return
        }
        var totalMilliseconds = 0.0
        var rest = Substring(trimmed)
        guard !rest.isEmpty else { return nil }
        while !rest.isEmpty {
            let number = rest.prefix { $0.isNumber || $0 == "." }
            rest = rest.dropFirst(number.count)
            let unit = rest.prefix { $0.isLetter }
            rest = rest.dropFirst(unit.count)
            guard let value = Double(number), value >= 0 else { return nil }
            let milliseconds: Double
            switch unit {
            case "ms": milliseconds = value
            case "s": milliseconds = value * 1000
            case "m": milliseconds = value * 60_000
            case "h": milliseconds = value * 3_600_000
            default: return nil
            }
            totalMilliseconds += milliseconds
            guard totalMilliseconds < Self.longestConfigDuration / .milliseconds(1) else { return nil }
        }
        self = .microseconds(Int64((totalMilliseconds * 1000).rounded()))
    }

    /// The longest duration a config or option may give: what nanoseconds in an `Int64` count,
    /// about 292 years. Longer ones would not survive the conversions the clocks make.
    public static let longestConfigDuration = Duration.nanoseconds(Int64.max)

    /// The duration as the config writes it, which `init(configText:)` reads back exactly:
    /// `0`, `500ms`, `30s`, `1m30s`, `2h`, `1s250ms`, `0.5ms` (whole units largest first,
    /// the rest in milliseconds).
    public var configText: String {
        let (seconds, attoseconds) = components
        guard seconds > 0 || attoseconds > 0 else { return "0" }
        let wholeUnits: [(count: Int64, unit: String)] = [(seconds / 3600, "h"), (seconds / 60 % 60, "m"), (seconds % 60, "s")]
        var text = wholeUnits.filter { $0.count > 0 }.map { "\($0.count)\($0.unit)" }.joined()
        let microseconds = attoseconds / 1_000_000_000_000
        if microseconds > 0 {
            text += microseconds % 1000 == 0 ? "\(microseconds / 1000)ms" : "\(Double(microseconds) / 1000)ms"
        }
        return text
    }

    /// The duration in seconds as a Double.
    public var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}

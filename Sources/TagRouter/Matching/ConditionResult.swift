/// How one condition of a route fared against an event, for `--explain`.
public struct ConditionResult: Sendable, Equatable, CustomStringConvertible {
    /// The `match` key (`uri`, `uid`, `event`…).
    public var key: String
    public var passed: Bool
    /// What was expected and what the event had: `"spotify:track:1" matches spotify:*`.
    public var detail: String

    public var description: String { "\(passed ? "✓" : "✗") \(key): \(detail)" }
}

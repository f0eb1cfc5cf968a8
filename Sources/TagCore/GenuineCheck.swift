import OrderedJSON
/// What checking a tag's NXP originality signature (READ_SIG) found — the
/// event's `tag.genuine`: `true` (NXP signed this UID), `false` (the signature
/// does not fit the UID: not an NXP chip, or another UID), `unknown` (a chip that
/// should have one did not give it). Worked out by this daemon from the UID and
/// `tag.signature`, never taken from a message.
public enum GenuineCheck: String, Sendable, Equatable, CaseIterable {
    case genuine = "true"
    case notGenuine = "false"
    case unknown

    /// The verdict `json` writes; nil for any other value.
    public init?(json: JSONValue) {
        switch json {
        case .bool(true): self = .genuine
        case .bool(false): self = .notGenuine
        case .string(Self.unknown.rawValue): self = .unknown
        default: return nil
        }
    }

    /// `true`, `false` or `"unknown"`, as the event carries it.
    public var json: JSONValue {
        switch self {
        case .genuine: .bool(true)
        case .notGenuine: .bool(false)
        case .unknown: .string(rawValue)
        }
    }
}

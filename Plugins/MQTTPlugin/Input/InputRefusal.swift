/// Why an `mqtt` input did not route a message: each reason is counted apart
/// and logged at most once a minute (`WarningThrottle`), so a flood of one kind
/// neither fills the log nor hides the other kinds.
enum InputRefusal: String, Sendable, CaseIterable, Hashable {
    /// Not a message of the input's format, or over a bound (payload, event id, UID, reader name).
    case malformed
    /// Format `tagrouter` with `trust: signed`: no key id and signature in the message's user properties.
    case unsigned
    /// Signed with a key id the input's `keys:` does not list.
    case unknownKey = "unknown_key"
    /// The signature does not match the payload under the key it names.
    case badSignature = "bad_signature"
    /// The event's time is further back than the input's `max_age` (a replay, or a message held too long).
    case tooOld = "too_old"
    /// The event's time is ahead of this machine's clock by more than `InputIntake.futureSkew`.
    case fromTheFuture = "from_the_future"
    /// The event names one of this daemon's own readers: an input cannot speak for them.
    case localReader = "local_reader"
    /// Signed with one node's key, the message names another node (in its payload or its topic).
    case wrongNode = "wrong_node"

    /// The refusal for a signature problem.
    init(_ problem: EventSignature.Problem) {
        switch problem {
        case .unsigned: self = .unsigned
        case .unknownKey: self = .unknownKey
        case .badSignature: self = .badSignature
        }
    }
}

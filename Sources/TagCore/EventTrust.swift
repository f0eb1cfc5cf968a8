/// Who wrote an event's JSON, which decides what of it is believed when it is
/// read back: `tag.sun` and `tag.genuine` say a tag is verified or genuine, and
/// only this daemon's own checks may say so.
public enum EventTrust: Sendable {
    /// Anyone else: an `mqtt` input, `run --events-from`, a file a user gives.
    /// `tag.sun` and `tag.genuine` are ignored (this daemon checks again).
    case untrusted
    /// This daemon's own record, which only its user can write (the spool under
    /// `state_dir`): read back whole, `tag.sun` and `tag.genuine` included, as
    /// they were when the event was routed.
    case ownRecord
}

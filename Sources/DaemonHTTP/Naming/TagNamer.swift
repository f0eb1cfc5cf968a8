import TagCore

/// What the daemon lets the live page do to its named tags: give the tag with a
/// UID a name — a new entry, or a rename when the tags file knows the tag —
/// written the way `tagrouter tags learn` writes it, followed by a reload.
public protocol TagNamer: Sendable {
    /// Names the tag `uid` `name`, in `groups` (comma-separated, as `tags learn` asks them; a rename keeps the groups).
    func name(_ uid: TagUID, as name: String, groups: String) -> NamingOutcome
}

/// What naming a tag came to, as the page shows it on the tap card.
public enum NamingOutcome: Sendable {
    /// Written and reloaded (or nothing to change): what happened, in a sentence.
    case done(String)
    /// The request cannot be done as asked (the name is taken, empty, too long): the user changes it.
    case refused(String)
    /// The file could not be read or written, or the daemon refused the changed config.
    case failed(String)
}

extension TagEvent {
    /// An event later in this tag's presence (`tag.held`, `tag.tapped`,
    /// `tag.removed`): the same reader, tag (with its name) and tag id as this
    /// arrival, none of its content.
    public func following(_ kind: Kind, dwellMs: Int? = nil) -> TagEvent {
        TagEvent(kind: kind, reader: reader, tag: tag, dwellMs: dwellMs, presenceTagID: tagID)
    }
}

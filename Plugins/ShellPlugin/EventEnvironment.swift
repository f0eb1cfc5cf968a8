import TagCore

/// The `TAG_*` environment variables every shell command gets: the only way
/// tag contents reach a shell script.
enum EventEnvironment {
    static func variables(for event: TagEvent) -> [(String, String)] {
        [
            ("TAG_EVENT", event.kind.rawValue),
            ("TAG_EVENT_ID", event.id),
            ("TAG_UID", event.tag?.uid.hex ?? ""),
            ("TAG_TYPE", event.tag?.type ?? ""),
            ("TAG_URI", event.uri ?? ""),
            ("TAG_TEXT", event.text ?? ""),
            ("TAG_READER", event.reader),
        ]
    }
}

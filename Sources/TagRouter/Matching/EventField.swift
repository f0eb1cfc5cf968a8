import TagCore

/// A single string member of an event that a match condition can look at,
/// read in place (no copy of the event, no list built).
enum EventField: Sendable {
    case uri, text, reader, tagType, tagName

    func value(in event: TagEvent) -> String? {
        switch self {
        case .uri: return event.uri
        case .text: return event.text
        case .reader: return event.reader
        case .tagType: return event.tag?.type
        case .tagName: return event.tag?.name
        }
    }
}

import OrderedJSON
import SystemKit
import TagCore

/// The one info line per gesture that answers "did my tap do anything?": the reader,
/// the tag (type, UID, its name and Home Assistant tag id when it has them), the
/// first URI or text, and the routes that matched — or "no route matched".
/// A gesture is an arrival, a tap or a hold; other events get the same line at debug level.
struct TapLine {
    let message: String
    let fields: JSONObject

    init(_ event: TagEvent, routes: [String]) {
        var words = [event.kind == .tagArrived ? "tap on \(event.reader):" : "\(event.kind.rawValue) on \(event.reader):"]
        var fields = JSONObject(["event": .string(event.kind.rawValue), "event_id": .string(event.id), "reader": .string(event.reader)])
        if let tag = event.tag {
            words += [tag.type, tag.uid.hex]
            fields["tag_type"] = .string(tag.type)
            fields["tag_uid"] = .string(tag.uid.hex)
            if let name = tag.name {
                words.append("'\(name)'")
                fields["tag_name"] = .string(name)
            }
        }
        if let id = event.tagID, id != event.tag?.uid.dashed {
            words.append("tag id \(id)")
            fields["tag_id"] = .string(id)
        }
        if let uri = event.uri {
            words.append(uri)
            fields["uri"] = .string(uri)
        } else if let text = event.text {
            words.append(JSONValue.string(text).serialized())
            fields["text"] = .string(text)
        }
        if let message = event.message { words.append("(\(message))") }
        words.append(routes.isEmpty ? "→ no route matched" : "→ " + routes.joined(separator: ", "))
        fields["routes"] = .array(routes.map(JSONValue.string))
        message = words.joined(separator: " ")
        self.fields = fields
    }

    /// The kinds a person makes with a tag, each worth an info line.
    static let gestures: Set<TagEvent.Kind> = [.tagArrived, .tagTapped, .tagHeld]

    /// Info for a gesture, debug for every other event.
    static func log(_ event: TagEvent, routes: [String]) {
        let level: Log.Level = gestures.contains(event.kind) ? .info : .debug
        guard level >= Log.level else { return }
        let line = TapLine(event, routes: routes)
        Log.write(level, line.message, line.fields)
    }
}

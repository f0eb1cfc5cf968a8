import Foundation
import TagCore

/// A tag event that could not be read back from JSON.
public struct EventDecodingError: Error, Sendable, CustomStringConvertible {
    public var description: String
}

extension TagEvent {
    /// Reads an event in the documented JSON form (what `json` writes, what
    /// `watch` prints, what the spool keeps). Missing `id` and `time` are made up;
    /// `event` defaults to `tag.arrived` and `reader` to `reader`.
    public init(json: JSONValue) throws(EventDecodingError) {
        guard case .object = json else { throw EventDecodingError(description: "an event must be a JSON object") }
        let kindText = json["event"]?.stringValue ?? TagEvent.Kind.tagArrived.rawValue
        guard let kind = TagEvent.Kind(rawValue: kindText) else {
            throw EventDecodingError(description: "unknown event kind '\(kindText)'; expected one of " + TagEvent.Kind.allCases.map(\.rawValue).joined(separator: ", "))
        }
        var tag: TagInfo?
        if let tagJSON = json["tag"], case .object = tagJSON {
            guard let uidText = tagJSON["uid"]?.stringValue, let uid = TagUID(uidText) else {
                throw EventDecodingError(description: "tag.uid must be hex digits such as 04a224b2")
            }
            tag = TagInfo(
                uid: uid, type: tagJSON["type"]?.stringValue ?? "unknown", nfcForumType: Self.int(tagJSON["nfcForumType"]),
                atqa: tagJSON["atqa"]?.stringValue.flatMap { TagUID($0)?.bytes } ?? [],
                sak: tagJSON["sak"]?.stringValue.flatMap { TagUID($0)?.bytes.first },
                ndefCapacity: Self.int(tagJSON["ndefCapacity"]),
                writable: { if case .bool(let value)? = tagJSON["writable"] { value } else { nil } }(),
                name: tagJSON["name"]?.stringValue,
                groups: { if case .array(let groups)? = tagJSON["groups"] { groups.compactMap(\.stringValue) } else { [] } }())
        }
        var time = Date()
        if let timeText = json["time"]?.stringValue {
            guard let parsed = Self.parseTime(timeText) else { throw EventDecodingError(description: "time '\(timeText)' is not ISO 8601") }
            time = parsed
        }
        let ndef = json["ndef"].flatMap { $0 == .null ? nil : $0 }
        self.init(
            kind: kind, id: json["id"]?.stringValue ?? UUID().uuidString.lowercased(), time: time,
            reader: json["reader"]?.stringValue ?? "reader", tag: tag, ndef: ndef,
            ndefError: json["ndefError"]?.stringValue, uri: json["uri"]?.stringValue, text: json["text"]?.stringValue,
            dwellMs: Self.int(json["dwellMs"]), message: json["message"]?.stringValue)
        // A tag id that this event alone would not give (a removal's HA id) is kept.
        if let tagID = json["tag_id"]?.stringValue, tagID != self.tagID { presenceTagID = tagID }
    }

    /// Reads one event from a line of JSON text.
    public init(jsonText: String) throws(EventDecodingError) {
        let value: JSONValue
        do {
            value = try JSONValue.parse(jsonText)
        } catch {
            throw EventDecodingError(description: "not JSON: \(error.description)")
        }
        try self.init(json: value)
    }

    private static func int(_ value: JSONValue?) -> Int? {
        switch value {
        case .int(let int)?: return Int(int)
        case .double(let double)?: return Int(exactly: double)
        default: return nil
        }
    }

    private static func parseTime(_ text: String) -> Date? {
        (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text)) ?? (try? Date.ISO8601FormatStyle().parse(text))
    }
}

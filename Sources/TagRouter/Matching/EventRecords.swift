import OrderedJSON
import TagCore

/// The NDEF records of an event, for the record conditions.
enum EventRecords {
    static func all(_ event: TagEvent) -> [JSONValue] {
        if case .array(let records)? = event.ndef?["records"] { return records }
        return []
    }

    /// The string field `field` of every record that has it (optionally only
    /// well-known records of `type`); for `uri`, a Smart Poster's URI counts too.
    static func values(_ event: TagEvent, _ field: String, type: String? = nil) -> [String] {
        all(event).compactMap { record in
            if let type, record["type"]?.stringValue != type { return nil }
            return record[field]?.stringValue ?? (field == "uri" ? record["smart_poster"]?["uri"]?.stringValue : nil)
        }
    }
}

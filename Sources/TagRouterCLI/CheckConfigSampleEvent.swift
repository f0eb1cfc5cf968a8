import OrderedJSON
import TagCore
import TagRouter

/// The sample event `check-config --explain` runs through the routes, from
/// `--event JSON` or built from `--uri`, `--text`, `--uid` and friends.
struct CheckConfigSampleEvent {
    let json: String?
    let uri: String?
    let text: String?
    let uid: String?
    let reader: String?
    let tagType: String?
    let kind: String?

    init(_ arguments: inout Arguments) throws(CLIError) {
        json = try arguments.value(of: CheckConfigCommand.eventOption)
        uri = try arguments.value(of: CheckConfigCommand.uriOption)
        text = try arguments.value(of: CheckConfigCommand.textOption)
        uid = try arguments.value(of: CheckConfigCommand.uidOption)
        reader = try arguments.value(of: CheckConfigCommand.readerOption)
        tagType = try arguments.value(of: CheckConfigCommand.tagTypeOption)
        kind = try arguments.value(of: CheckConfigCommand.kindOption)
    }

    /// True when any sample option was given.
    var given: Bool { [json, uri, text, uid, reader, tagType, kind].contains { $0 != nil } }

    func event(defaultReader: String) throws(CLIError) -> TagEvent {
        if let json {
            guard [uri, text, uid, reader, tagType, kind].allSatisfy({ $0 == nil }) else {
                throw .usage("--event takes the whole event; do not combine it with --uri, --text, --uid, --reader, --tag-type or --kind")
            }
            do {
                return try TagEvent(jsonText: json)
            } catch {
                throw .data("--event: \(error.description)")
            }
        }
        let kindText = kind ?? TagEvent.Kind.tagArrived.rawValue
        guard let eventKind = TagEvent.Kind(rawValue: kindText) else {
            throw .usage("--kind must be one of " + TagEvent.Kind.allCases.map(\.rawValue).joined(separator: ", "))
        }
        let uidText = uid ?? "04a224b2c35e80"
        guard let tagUID = TagUID(uidText) else { throw .usage("--uid: " + (TagUID.problem(uidText) ?? "'\(uidText)' is not a tag UID")) }
        var records: [JSONValue] = []
        if let uri { records.append(["tnf": 1, "type": "U", "id": "", "uri": .string(uri)]) }
        if let text { records.append(["tnf": 1, "type": "T", "id": "", "text": .string(text), "lang": "en", "encoding": "UTF-8"]) }
        return TagEvent(
            kind: eventKind, reader: reader ?? defaultReader,
            tag: eventKind.isTagEvent ? TagInfo(uid: tagUID, type: tagType ?? "ntag215", nfcForumType: 2) : nil,
            ndef: records.isEmpty ? nil : .object(JSONObject(["records": .array(records)])),
            uri: uri, text: text)
    }
}

import OrderedJSON
import TagCore
import TagRouter

/// The sample event `check-config --explain` runs through the routes, from
/// `--event JSON` or built from `--uri`, `--text`, `--uid` and friends.
struct CheckConfigSampleEvent {
    let json: String?
    let uri: String?
    let text: String?
    let uid: TagUID
    let reader: String?
    let tagType: String
    let kind: TagEvent.Kind
    /// The sample options given, by name.
    let given: [String]

    /// Every option that says something of the sample event.
    static var options: [any DeclaredOption] {
        [CheckConfigCommand.eventOption, CheckConfigCommand.uriOption, CheckConfigCommand.textOption, CheckConfigCommand.uidOption,
         CheckConfigCommand.readerOption, CheckConfigCommand.tagTypeOption, CheckConfigCommand.kindOption]
    }

    init(_ arguments: inout Arguments) throws(CLIError) {
        given = Self.options.filter(arguments.isGiven).map { $0.declaration.names[0] }
        json = try arguments.value(of: CheckConfigCommand.eventOption)
        uri = try arguments.value(of: CheckConfigCommand.uriOption)
        text = try arguments.value(of: CheckConfigCommand.textOption)
        uid = try arguments.value(of: CheckConfigCommand.uidOption)
        reader = try arguments.value(of: CheckConfigCommand.readerOption)
        tagType = try arguments.value(of: CheckConfigCommand.tagTypeOption)
        kind = try arguments.value(of: CheckConfigCommand.kindOption)
    }

    func event(defaultReader: String) throws(CLIError) -> TagEvent {
        if let json {
            let others = given.filter { $0 != CheckConfigCommand.eventOption.declaration.names[0] }
            guard others.isEmpty else { throw .usage("--event takes the whole event; do not combine it with \(others.spelledAsList)") }
            do {
                return try TagEvent(jsonText: json)
            } catch {
                throw .data("--event: \(error.description)")
            }
        }
        var records: [JSONValue] = []
        if let uri { records.append(["tnf": 1, "type": "U", "id": "", "uri": .string(uri)]) }
        if let text { records.append(["tnf": 1, "type": "T", "id": "", "text": .string(text), "lang": "en", "encoding": "UTF-8"]) }
        return TagEvent(
            kind: kind, reader: reader ?? defaultReader,
            tag: kind.isTagEvent ? TagInfo(uid: uid, type: tagType, nfcForumType: 2) : nil,
            ndef: records.isEmpty ? nil : .object(JSONObject(["records": .array(records)])),
            uri: uri, text: text)
    }
}

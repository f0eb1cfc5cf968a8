import FoundationEssentials
import OrderedJSON

/// A tag event that could not be read back from JSON.
public struct EventDecodingError: Error, Sendable, CustomStringConvertible {
    public var description: String
}

/// The public event format, version 1 (docs/event.schema.json): written by `json`
/// (a tree) and `jsonText` (text, from the same `writeMembers`),
/// read by `init(json:)`, both here so they cannot drift apart. Member names are
/// snake_case; absent values are left out, except `ndef`, which a `tag.arrived`
/// always carries (`null` for a tag without an NDEF message).
extension TagEvent {
    /// The member names of format v1, written once for the writer and the reader.
    public enum Field {
        public static let event = "event", id = "id", time = "time", reader = "reader", node = "node", tag = "tag", tagID = "tag_id"
        public static let ndef = "ndef", ndefError = "ndef_error", uri = "uri", text = "text"
        public static let dwellMs = "dwell_ms", message = "message", removalAssumed = "removal_assumed"
    }

    /// The event as JSON, members in the documented order.
    public var json: JSONValue {
        var object = JSONObject(reservingCapacity: 12)
        writeMembers(into: &object)
        return .object(object)
    }

    /// The event as one line of JSON text, the same as `json.serialized()`, written
    /// straight from the fields (no `JSONValue` tree is built and freed).
    public var jsonText: String {
        var writer = JSONWriter(capacity: 1024)  // a whole event without regrowing
        write(to: &writer)
        return writer.text
    }

    /// Writes the event's JSON object into `writer`, straight from the fields.
    public func write(to writer: inout JSONWriter) {
        writer.writeObject { writeMembers(into: &$0) }
    }

    /// The members of format v1 in the documented order, into `sink`: a tree for
    /// `json`, text for `jsonText`.
    public func writeMembers(into sink: inout some JSONMemberSink) {
        sink.member(Field.event, string: kind.rawValue)
        sink.member(Field.id, string: id)
        sink.member(Field.time, string: EventTime.format(time))
        sink.member(Field.reader, string: reader)
        if let node { sink.member(Field.node, string: node) }
        if let tag { sink.member(Field.tag) { tag.writeMembers(into: &$0) } }
        // Without a tag only an `mqtt` input's Home Assistant tag id (`uri`) gives one.
        if let tagID { sink.member(Field.tagID, string: tagID) }
        if kind == .tagArrived {
            sink.member(Field.ndef, storedNDEF ?? .value(.null))
            if let ndefError { sink.member(Field.ndefError, string: ndefError) }
            if let uri { sink.member(Field.uri, string: uri) }
            if let text { sink.member(Field.text, string: text) }
        }
        if let dwellMs { sink.member(Field.dwellMs, .int(Int64(dwellMs))) }
        if removalAssumed { sink.member(Field.removalAssumed, .bool(true)) }
        if let message { sink.member(Field.message, string: message) }
    }

    /// Reads an event in format v1 (what `json` writes, what `watch` prints, what
    /// the spool keeps). Missing `id` and `time` are made up; `event` defaults to
    /// `tag.arrived` and `reader` to `reader`. Members it does not know — including
    /// the camelCase names from before v1 — are ignored, and so are `tag.sun` and
    /// `tag.genuine` unless the JSON is this daemon's own record (`trust`).
    public init(json: JSONValue, trust: EventTrust = .untrusted) throws(EventDecodingError) {
        guard case .object(let object) = json else { throw EventDecodingError(description: "an event must be a JSON object") }
        var members = Members()
        for (key, value) in object { members.take(key, value) }
        try self.init(members, trust: trust)
    }

    /// Reads one event from a line of JSON text, untrusted.
    public init(jsonText: String) throws(EventDecodingError) {
        var text = jsonText
        self = try text.withUTF8 { bytes in Result { () throws(EventDecodingError) in try TagEvent(jsonUTF8: bytes) } }.get()
    }

    /// Reads one event from a line of JSON as UTF-8 bytes (an events file's line, read
    /// without making a String), untrusted. The event object and its `tag` are read member by
    /// member, never built as objects: only the values format v1 keeps are made. `ndef` is
    /// kept as its text when that is how it is written (`JSONReader.lazyValue()`), built when
    /// something looks inside it.
    public init(jsonUTF8: UnsafeBufferPointer<UInt8>) throws(EventDecodingError) {
        var members = Members()
        var isObject = true
        do {
            try JSONReader.read(utf8: jsonUTF8) { reader throws(JSONParseError) in
                guard reader.atObject() else {
                    isObject = false
                    _ = try reader.value()
                    return
                }
                try reader.object { key, reader throws(JSONParseError) in
                    if key.is(Field.ndef) { return members.ndef = try reader.lazyValue() }
                    guard key.is(Field.tag), reader.atObject() else { return members.take(key, try reader.value()) }
                    var tag = TagInfo.Members()
                    try reader.object { key, reader throws(JSONParseError) in tag.take(key, try reader.value()) }
                    members.tag = .members(tag)
                }
            }
        } catch {
            throw EventDecodingError(description: "not JSON: \(error.description)")
        }
        guard isObject else { throw EventDecodingError(description: "an event must be a JSON object") }
        try self.init(members, trust: .untrusted)
    }

    /// The members of an event object that format v1 reads; a repeated name keeps its last value.
    struct Members {
        /// The `tag` member: taken apart while reading text, or a value as found in a `JSONValue`.
        enum Tag {
            case members(TagInfo.Members)
            case value(JSONValue)
        }

        var event, id, time, reader, node, tagID, ndefError, uri, text, dwellMs, message, removalAssumed: JSONValue?
        var tag: Tag?
        var ndef: LazyJSONValue?

        /// Spelled out name by name: a table of names and setters made reading an
        /// event line ~9k instructions slower (each entry retained while searched).
        mutating func take(_ key: JSONKey, _ value: JSONValue) {
            if key.is(Field.event) { event = value }
            else if key.is(Field.id) { id = value }
            else if key.is(Field.time) { time = value }
            else if key.is(Field.reader) { reader = value }
            else if key.is(Field.node) { node = value }
            else if key.is(Field.tag) { tag = .value(value) }
            else if key.is(Field.tagID) { tagID = value }
            else if key.is(Field.ndef) { ndef = .value(value) }
            else if key.is(Field.ndefError) { ndefError = value }
            else if key.is(Field.uri) { uri = value }
            else if key.is(Field.text) { text = value }
            else if key.is(Field.dwellMs) { dwellMs = value }
            else if key.is(Field.message) { message = value }
            else if key.is(Field.removalAssumed) { removalAssumed = value }
        }

        mutating func take(_ key: String, _ value: JSONValue) {
            var key = key
            key.withUTF8 { take(JSONKey(utf8: $0), value) }
        }
    }

    private init(_ members: Members, trust: EventTrust) throws(EventDecodingError) {
        let kindText = members.event?.stringValue ?? TagEvent.Kind.tagArrived.rawValue
        guard let kind = TagEvent.Kind(rawValue: kindText) else {
            throw EventDecodingError(description: "unknown event kind '\(kindText)'; expected one of " + TagEvent.Kind.allCases.map(\.rawValue).joined(separator: ", "))
        }
        var time = Date()
        if let timeText = members.time?.stringValue {
            guard let parsed = EventTime.parse(timeText) else { throw EventDecodingError(description: "time '\(timeText)' is not ISO 8601") }
            time = parsed
        }
        let tag: TagInfo? = switch members.tag {
        case .members(let tag): try TagInfo(tag, trust: trust)
        case .value(let value): try value.unlessNull.map { value throws(EventDecodingError) in try TagInfo(json: value, trust: trust) }
        case nil: nil
        }
        self.init(
            kind: kind, id: members.id?.stringValue ?? UUID().uuidString.lowercased(), time: time,
            reader: members.reader?.stringValue ?? "reader", tag: tag,
            ndefError: members.ndefError?.stringValue, uri: members.uri?.stringValue, text: members.text?.stringValue,
            dwellMs: members.dwellMs?.integer, message: members.message?.stringValue, node: members.node?.stringValue)
        storedNDEF = members.ndef.flatMap { $0.isNull ? nil : $0 }
        // A tag id that this event alone would not give (a removal's HA id) is kept.
        if let tagID = members.tagID?.stringValue, tagID != self.tagID { presenceTagID = tagID }
        removalAssumed = members.removalAssumed == .bool(true)
    }
}

extension TagInfo {
    /// The member names of the `tag` object in format v1.
    public enum Field {
        public static let uid = "uid", uidDashed = "uid_dashed", type = "type", nfcForumType = "nfc_forum_type"
        public static let atqa = "atqa", sak = "sak", ndefCapacity = "ndef_capacity", writable = "writable"
        public static let name = "name", groups = "groups", sun = "sun"
        public static let signature = "signature", genuine = "genuine"
    }

    /// The member names of the `tag.sun` object.
    public enum SUNField {
        public static let verified = "verified", uid = "uid", counter = "counter", reason = "reason"
    }

    /// The `tag` object, members in the documented order.
    public var json: JSONValue {
        var object = JSONObject(reservingCapacity: 10)
        writeMembers(into: &object)
        return .object(object)
    }

    /// The `tag` object's members in the documented order, into `sink`.
    public func writeMembers(into sink: inout some JSONMemberSink) {
        sink.member(Field.uid, string: uid.hex)
        sink.member(Field.uidDashed, string: uid.dashed)
        sink.member(Field.type, string: type)
        if let nfcForumType { sink.member(Field.nfcForumType, .int(Int64(nfcForumType))) }
        if !atqa.isEmpty { sink.member(Field.atqa, string: TagUID(bytes: atqa).hex) }
        if let sak { sink.member(Field.sak, string: TagUID(bytes: [sak]).hex) }
        if let ndefCapacity { sink.member(Field.ndefCapacity, .int(Int64(ndefCapacity))) }
        if let writable { sink.member(Field.writable, .bool(writable)) }
        if let name { sink.member(Field.name, string: name) }
        if name != nil || !groups.isEmpty { sink.member(Field.groups, .array(groups.map(JSONValue.string))) }
        if let sun {
            sink.member(Field.sun) { object in
                object.member(SUNField.verified, .bool(sun.verified))
                if let uid = sun.uid { object.member(SUNField.uid, string: uid) }
                if let counter = sun.counter { object.member(SUNField.counter, .int(Int64(counter))) }
                if let failure = sun.failure { object.member(SUNField.reason, string: failure.rawValue) }
            }
        }
        if let signature { sink.member(Field.signature, string: TagUID(bytes: signature).hex) }
        if let genuine { sink.member(Field.genuine, genuine.json) }
    }

    /// Reads the `tag` object; `uid` is required, `type` defaults to `unknown`.
    /// `sun` and `genuine` are read only from this daemon's own record (`trust`):
    /// only its own checks may say a tag is verified or genuine (`signature` is
    /// read either way, for the router to check).
    public init(json: JSONValue, trust: EventTrust = .untrusted) throws(EventDecodingError) {
        guard case .object(let object) = json else { throw Members.missingUID }
        var members = Members()
        for (key, value) in object {
            var key = key
            key.withUTF8 { members.take(JSONKey(utf8: $0), value) }
        }
        try self.init(members, trust: trust)
    }

    /// The members of a `tag` object that format v1 reads; a repeated name keeps its last value.
    struct Members {
        static let missingUID = EventDecodingError(description: "tag.uid must be hex digits such as 04a224b2")

        var uid, type, nfcForumType, atqa, sak, ndefCapacity, writable, name, groups, signature, sun, genuine: JSONValue?

        /// Spelled out name by name, as the event's members are (see there why).
        mutating func take(_ key: JSONKey, _ value: JSONValue) {
            if key.is(Field.uid) { uid = value }
            else if key.is(Field.type) { type = value }
            else if key.is(Field.nfcForumType) { nfcForumType = value }
            else if key.is(Field.atqa) { atqa = value }
            else if key.is(Field.sak) { sak = value }
            else if key.is(Field.ndefCapacity) { ndefCapacity = value }
            else if key.is(Field.writable) { writable = value }
            else if key.is(Field.name) { name = value }
            else if key.is(Field.groups) { groups = value }
            else if key.is(Field.signature) { signature = value }
            else if key.is(Field.sun) { sun = value }
            else if key.is(Field.genuine) { genuine = value }
        }
    }

    init(_ members: Members, trust: EventTrust) throws(EventDecodingError) {
        guard let uidText = members.uid?.stringValue, let uid = TagUID(uidText) else { throw Members.missingUID }
        self.init(
            uid: uid, type: members.type?.stringValue ?? "unknown", nfcForumType: members.nfcForumType?.integer,
            atqa: members.atqa?.stringValue.flatMap { TagUID($0)?.bytes } ?? [],
            sak: members.sak?.stringValue.flatMap { TagUID($0)?.bytes.first },
            ndefCapacity: members.ndefCapacity?.integer,
            writable: { if case .bool(let value)? = members.writable { value } else { nil } }(),
            name: members.name?.stringValue,
            groups: { if case .array(let groups)? = members.groups { groups.compactMap(\.stringValue) } else { [] } }())
        signature = members.signature?.stringValue.flatMap { TagUID($0)?.bytes }
        guard trust == .ownRecord else { return }
        sun = try members.sun?.unlessNull.map(Self.sunCheck)
        genuine = try members.genuine?.unlessNull.map { json throws(EventDecodingError) in
            guard let genuine = GenuineCheck(json: json) else {
                throw EventDecodingError(description: "\(TagEvent.Field.tag).\(Field.genuine): \(json.serialized()) is not true, false or \"unknown\"")
            }
            return genuine
        }
    }

    /// The `tag.sun` object as `writeMembers` writes it; anything else (a reason
    /// this daemon does not know, `verified` that disagrees with the reason) is an error.
    private static func sunCheck(_ json: JSONValue) throws(EventDecodingError) -> SUNCheck {
        let name = "\(TagEvent.Field.tag).\(Field.sun)"
        guard case .object = json, case .bool(let verified)? = json[SUNField.verified] else {
            throw EventDecodingError(description: "\(name): expected an object with `verified` true or false, found \(json.serialized())")
        }
        var failure: SUNCheck.Failure?
        if let reason = json[SUNField.reason]?.stringValue {
            guard let known = SUNCheck.Failure(rawValue: reason) else {
                throw EventDecodingError(
                    description: "\(name).\(SUNField.reason): '\(reason)' is not one of " + SUNCheck.Failure.allCases.map(\.rawValue).joined(separator: ", "))
            }
            failure = known
        }
        guard verified == (failure == nil) else {
            throw EventDecodingError(description: "\(name): a check is verified exactly when it has no reason; found \(json.serialized())")
        }
        return SUNCheck(uid: json[SUNField.uid]?.stringValue, counter: json[SUNField.counter]?.integer, failure: failure)
    }
}

extension JSONValue {
    /// The value, or nil for `null` (spelled out: a bare `nil` here would become `JSONValue.null`).
    fileprivate var unlessNull: JSONValue? { self == .null ? Optional.none : self }

    /// A whole number as `Int`, from `.int` or an integral `.double`; nil otherwise.
    fileprivate var integer: Int? {
        switch self {
        case .int(let int): return Int(exactly: int)
        case .double(let double): return Int(exactly: double)
        default: return nil
        }
    }
}

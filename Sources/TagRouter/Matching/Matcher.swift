import OrderedJSON
import TagCore

/// A route's compiled `match:` section: every condition must hold; a condition
/// with several values holds when any of them matches.
public struct Matcher: Sendable {
    /// One compiled condition: its key, what it wants, and where it looks.
    /// A class: the router tries every route's conditions for every event, and
    /// handing a condition on then costs one reference count, not one per field.
    final class Condition: Sendable {
        /// How the verdict is reached on the routing hot path. The common checks
        /// read the event in place: a closure taking the event would copy it.
        enum Check: Sendable {
            /// One string member of the event against the patterns.
            case field(EventField)
            /// The tag's UID, compared by bytes.
            case uid
            /// Any of `values` against any pattern.
            case values
        }

        let key: String
        let patterns: [TextPattern]
        /// The event's values this condition looks at, and what to call them when there are none.
        let values: @Sendable (TagEvent) -> [String]
        let missing: String
        let check: Check

        init(key: String, patterns: [TextPattern], values: @escaping @Sendable (TagEvent) -> [String], missing: String, check: Check = .values) {
            self.key = key
            self.patterns = patterns
            self.values = values
            self.missing = missing
            self.check = check
        }

        /// The verdict alone: no messages built (the routing hot path).
        func passes(_ event: TagEvent) -> Bool {
            switch check {
            case .field(let field):
                guard let value = field.value(in: event) else { return false }
                return patterns.contains { $0.matches(value) }
            case .uid:
                guard let uid = event.tag?.uid else { return false }
                return patterns.contains { $0.matches(uid: uid) }
            case .values:
                return values(event).contains { value in patterns.contains { $0.matches(value) } }
            }
        }

        /// The verdict with what was expected and found (for `--explain`).
        func evaluate(_ event: TagEvent) -> ConditionResult {
            let found = values(event)
            let wanted = patterns.map(\.description).joined(separator: " or ")
            guard !found.isEmpty else { return ConditionResult(key: key, passed: false, detail: "\(missing), expected \(wanted)") }
            for value in found {
                if let pattern = patterns.first(where: { $0.matches(value) }) {
                    return ConditionResult(key: key, passed: true, detail: "\(JSONValue.string(value).serialized()) matches \(pattern)")
                }
            }
            let shown = found.map { JSONValue.string($0).serialized() }.joined(separator: ", ")
            return ConditionResult(key: key, passed: false, detail: "\(shown) does not match \(wanted)")
        }
    }

    /// The wanted event kinds (at most seven: a list beats hashing).
    let kinds: [TagEvent.Kind]
    let conditions: [Condition]

    /// Compiles a validated `match:` section (all defaults when the route has none: every `tag.arrived`);
    /// conditions its spec does not declare (a tag entry's takes only content keys) are not read.
    public init(_ match: ConfigValue) throws(ConfigErrors) {
        kinds = match.declares("event") ? match.strings("event").compactMap(TagEvent.Kind.init(rawValue:)) : []
        let anyRecord = match.string("records") == "any"
        var errors = ConfigErrors()
        var conditions: [Condition] = []
        func add(
            _ key: String, missing: String, _ compile: (String) throws -> TextPattern, field: EventField? = nil, byUID: Bool = false,
            _ values: @escaping @Sendable (TagEvent) -> [String]
        ) {
            guard match.declares(key), let texts = match.optionalStrings(key) else { return }
            var patterns: [TextPattern] = []
            for (index, text) in texts.enumerated() {
                do {
                    patterns.append(try compile(text))
                } catch {
                    let node = match.child(key)?.node
                    let at = node?.elements?[index].mark ?? node?.mark ?? match.mark
                    errors.append(ConfigError(mark: at, path: "\(match.path).\(key)", message: "\(error)"))
                }
            }
            let check: Condition.Check = if byUID { .uid } else if let field { .field(field) } else { .values }
            conditions.append(Condition(key: key, patterns: patterns, values: values, missing: missing, check: check))
        }
        let glob: (String) -> TextPattern = { .glob(Glob($0)) }
        let regex: (String) throws -> TextPattern = { text in
            do { return .regex(try SendableRegex(text)) } catch { throw MatchPatternError(message: "invalid regular expression '\(text)': \(error)") }
        }
        let uid: (String) throws -> TextPattern = { text in
            guard let uid = TagUID(text) else { throw MatchPatternError(message: TagUID.problem(text) ?? "'\(text)' is not a tag UID") }
            return .uid(uid)
        }
        let uris: @Sendable (TagEvent) -> [String] = { event in
            anyRecord ? EventRecords.values(event, "uri") : [event.uri].compactMap { $0 }
        }
        let texts: @Sendable (TagEvent) -> [String] = { event in
            anyRecord ? EventRecords.values(event, "text", type: "T") : [event.text].compactMap { $0 }
        }
        // With `records: any` every record counts, so the first URI or text alone does not.
        let (uri, text): (EventField?, EventField?) = anyRecord ? (nil, nil) : (.uri, .text)
        add("uri", missing: "no URI on the tag", glob, field: uri, uris)
        add("uri_regex", missing: "no URI on the tag", regex, field: uri, uris)
        add("text", missing: "no Text record on the tag", glob, field: text, texts)
        add("text_regex", missing: "no Text record on the tag", regex, field: text, texts)
        add("mime", missing: "no MIME record on the tag", glob) { event in
            let mimes = EventRecords.values(event, "mime_type")
            return anyRecord ? mimes : Array(mimes.prefix(1))
        }
        add("uid", missing: "no tag in this event", uid, byUID: true) { $0.tag.map { [$0.uid.hex] } ?? [] }
        add("tag_id", missing: "no tag in this event", { text in
            TagUID(text).map(TextPattern.uid) ?? .glob(Glob(text))
        }) { event in [event.tagID, event.tag?.uid.hex].compactMap { $0 } }
        add("reader", missing: "no reader", glob, field: .reader) { [$0.reader] }
        add("tag_type", missing: "no tag in this event", glob, field: .tagType) { $0.tag.map { [$0.type] } ?? [] }
        add("tag", missing: "the tag has no name (it is not in `tags:`)", glob, field: .tagName) { $0.tag?.name.map { [$0] } ?? [] }
        add("group", missing: "the tag is in no group", glob) { $0.tag?.groups ?? [] }
        add("known", missing: "no tag in this event", { .glob(Glob(OptionValidator.bool($0) == true ? "true" : "false")) }) { $0.tag.map { [$0.name == nil ? "false" : "true"] } ?? [] }
        add("sun", missing: "no SUN message on the tag (or no `sun:` section)", glob) { event in
            event.tag?.sun.map { sun in sun.failure.map { ["failed", $0.rawValue] } ?? ["verified"] } ?? []
        }
        add("genuine", missing: "no originality check (only NTAG 21x and Ultralight EV1 read by a libnfc reader carry one)", glob) {
            $0.tag?.genuine.map { [$0.rawValue] } ?? []
        }
        if match.declares("record"), case let record = match.section("record"), record.has("tnf") || record.has("type") {
            conditions.append(Self.recordCondition(record, anyRecord: anyRecord))
        }
        for (path, value) in match.entries("json") {
            let wanted = value.json
            let alternatives: [JSONValue] = if case .array(let list) = wanted { list } else { [wanted] }
            let patterns = alternatives.map { TextPattern.glob(Glob($0.plainText)) }
            conditions.append(Condition(key: "json.\(path)", patterns: patterns, values: { event in
                event.json.value(atPath: path).map { [$0.plainText] } ?? []
            }, missing: "no '\(path)' in the event"))
        }
        if !errors.isEmpty { throw errors }
        self.conditions = conditions
    }

    /// The `record: {tnf, type}` condition: the record's TNF and type written as `tnf/type`.
    private static func recordCondition(_ record: ConfigValue, anyRecord: Bool) -> Condition {
        let tnfs = Set((record.child("tnf")?.stringList ?? []).compactMap { Int($0) })
        let types = record.optionalStrings("type").map { $0.map(Glob.init) }
        let wanted = (tnfs.isEmpty ? "*" : tnfs.sorted().map(String.init).joined(separator: "|")) + "/" + (types?.map(\.pattern).joined(separator: "|") ?? "*")
        return Condition(key: "record", patterns: [.glob(Glob(wanted))], values: { event in
            let records = EventRecords.all(event)
            let candidates = anyRecord ? records : Array(records.prefix(1))
            // A record that meets both parts is reported in the wanted form so the glob matches it.
            return candidates.map { record in
                let tnf = record["tnf"].flatMap { if case .int(let value) = $0 { Int(value) } else { nil } }
                let type = record["type"]?.stringValue ?? ""
                let tnfOK = tnfs.isEmpty || tnf.map(tnfs.contains) == true
                let typeOK = types?.contains { $0.matches(type) } ?? true
                return tnfOK && typeOK ? wanted : "\(tnf.map(String.init) ?? "?")/\(type)"
            }
        }, missing: "no NDEF record on the tag")
    }

    /// True when `event` is of a wanted kind and meets every condition.
    /// Whether a condition asks whether the tag is `known` (a "rejected" route asks `known: false`).
    var asksKnown: Bool { conditions.contains { $0.key == "known" } }

    public func matches(_ event: TagEvent) -> Bool {
        kinds.contains(event.kind) && meetsConditions(event)
    }

    /// True when `event` meets every condition, whatever its kind (a tag entry's `match`).
    public func meetsConditions(_ event: TagEvent) -> Bool {
        conditions.withUnsafeBufferPointer { conditions in
            for index in conditions.indices where !conditions[index].passes(event) { return false }
            return true
        }
    }

    /// The patterns of the condition on `key` (none when the match has no such condition).
    func patterns(for key: String) -> [TextPattern] {
        conditions.filter { $0.key == key }.flatMap(\.patterns)
    }

    /// Every condition's result, the event kind first (for `--explain`).
    public func explain(_ event: TagEvent) -> [ConditionResult] {
        let wanted = kinds.map(\.rawValue).sorted().joined(separator: " or ")
        let kind = ConditionResult(key: "event", passed: kinds.contains(event.kind), detail: kinds.contains(event.kind) ? event.kind.rawValue : "\(event.kind.rawValue), expected \(wanted)")
        return [kind] + conditions.map { $0.evaluate(event) }
    }
}

/// A value in `match:` that cannot be compiled.
struct MatchPatternError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

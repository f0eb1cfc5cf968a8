import TagCore

/// The routes an event can match at all, found by a few hash lookups instead of
/// trying every route: routes are filed by event kind and by one condition each
/// that a lookup can answer — the UID they want (`uid`, or `tag_id` given as a
/// UID), or the literal start of the globs on a field (`uri`, `text`, `tag`,
/// `tag_type`, `reader`, `tag_id`). A route with no such condition (regular
/// expressions, globs starting with a wildcard, `records: any`, no conditions)
/// is a candidate for every event of its kinds.
///
/// The index only narrows: the router still tries every candidate with its full
/// matcher, in file order, so first-match-wins and `continue: true` are
/// unchanged, and a hash collision costs one extra try, never a missed route.
struct RouteIndex: Sendable {
    private var buckets: [TagEvent.Kind: Bucket] = [:]

    init(_ matchers: [Matcher]) {
        for (route, matcher) in matchers.enumerated() {
            let entry = Entry(matcher)
            for kind in Set(matcher.kinds) { buckets[kind, default: Bucket()].file(route, entry) }
        }
    }

    /// The indices of the routes `event` may match, ascending (file order).
    func candidates(for event: TagEvent) -> [Int] {
        guard let bucket = buckets[event.kind] else { return [] }
        return bucket.candidates(for: event)
    }
}

extension RouteIndex {
    /// A string of the event that a prefix table files routes by.
    enum Field: Sendable, Hashable {
        case field(EventField)
        /// The Home Assistant tag id and the UID in hex, as the `tag_id` condition reads them.
        case tagID

        func forEachValue(in event: TagEvent, _ body: (String) -> Void) {
            switch self {
            case .field(let field):
                if let value = field.value(in: event) { body(value) }
            case .tagID:
                if let id = event.tagID { body(id) }
                if let uid = event.tag?.uid { body(uid.hex) }
            }
        }
    }

    /// Where one route is filed: the condition the index answers for it.
    enum Entry {
        /// The tag's UID (or, `viaTagID`, its tag id read as a UID) must be one of these.
        case uid([TagUID], viaTagID: Bool)
        /// A value of `field` must start with one of these bytes.
        case prefix(Field, [[UInt8]])
        /// Nothing to look up: tried for every event of its kinds.
        case everyEvent

        /// Fields by how well they tell routes apart: a reader name is often shared by every route.
        private static let preference: [EventField] = [.uri, .text, .tagName, .tagType, .reader]

        init(_ matcher: Matcher) {
            let conditions = matcher.conditions
            for condition in conditions {
                guard condition.key == "uid" || condition.key == "tag_id", let uids = Self.uids(condition.patterns) else { continue }
                self = .uid(uids, viaTagID: condition.key == "tag_id")
                return
            }
            for field in Self.preference {
                for condition in conditions {
                    guard case .field(field) = condition.check, let prefixes = Self.prefixes(condition.patterns) else { continue }
                    self = .prefix(.field(field), prefixes)
                    return
                }
            }
            if let condition = conditions.first(where: { $0.key == "tag_id" }), let prefixes = Self.prefixes(condition.patterns) {
                self = .prefix(.tagID, prefixes)
                return
            }
            self = .everyEvent
        }

        private static func uids(_ patterns: [TextPattern]) -> [TagUID]? {
            var uids: [TagUID] = []
            for pattern in patterns {
                guard case .uid(let uid) = pattern else { return nil }
                uids.append(uid)
            }
            return uids
        }

        /// The byte prefixes of globs matched by bytes; nil when any pattern has none (it could match anything).
        private static func prefixes(_ patterns: [TextPattern]) -> [[UInt8]]? {
            var prefixes: [[UInt8]] = []
            for pattern in patterns {
                guard case .glob(let glob) = pattern, let prefix = glob.bytePrefix, !prefix.isEmpty else { return nil }
                prefixes.append(prefix)
            }
            return prefixes
        }
    }

    /// The routes of one event kind.
    private struct Bucket: Sendable {
        var everyEvent: [Int] = []
        /// Routes by the hash of a UID they want.
        var byUID: [UInt64: [Int]] = [:]
        /// Some route wants the tag id as a UID: the event's tag id is looked up as one too.
        var tagIDAsUID = false
        var prefixTables: [PrefixTable] = []

        mutating func file(_ route: Int, _ entry: Entry) {
            switch entry {
            case .everyEvent:
                everyEvent.append(route)
            case .uid(let uids, let viaTagID):
                tagIDAsUID = tagIDAsUID || viaTagID
                for uid in uids { byUID[ByteHash.of(uid.bytes), default: []].append(route) }
            case .prefix(let field, let prefixes):
                if !prefixTables.contains(where: { $0.field == field }) { prefixTables.append(PrefixTable(field: field)) }
                let table = prefixTables.firstIndex { $0.field == field }!
                for prefix in prefixes { prefixTables[table].file(route, prefix: prefix) }
            }
        }

        func candidates(for event: TagEvent) -> [Int] {
            var found = everyEvent
            let unfiled = found.count
            if !byUID.isEmpty, let uid = event.tag?.uid {
                found.append(contentsOf: byUID[ByteHash.of(uid.bytes)] ?? [])
                if tagIDAsUID, let id = event.tagID, let idUID = TagUID(id), idUID != uid {
                    found.append(contentsOf: byUID[ByteHash.of(idUID.bytes)] ?? [])
                }
            }
            for table in prefixTables { table.candidates(for: event, into: &found) }
            guard found.count > unfiled else { return found }
            found.sort()
            // A route filed under several prefixes or UIDs can be found more than once.
            var kept = 1
            for position in 1..<found.count where found[position] != found[kept - 1] {
                found[kept] = found[position]
                kept += 1
            }
            found.removeLast(found.count - kept)
            return found
        }
    }

    /// Routes by the literal start of their globs on one field.
    private struct PrefixTable: Sendable {
        let field: Field
        /// The lengths of the filed prefixes, ascending, each once.
        var lengths: [Int] = []
        var routes: [UInt64: [Int]] = [:]

        init(field: Field) { self.field = field }

        mutating func file(_ route: Int, prefix: [UInt8]) {
            routes[ByteHash.of(prefix), default: []].append(route)
            if !lengths.contains(prefix.count) {
                lengths.append(prefix.count)
                lengths.sort()
            }
        }

        /// Appends the routes filed under every prefix of the field's values: one
        /// pass over each value's bytes, one lookup per filed length.
        func candidates(for event: TagEvent, into found: inout [Int]) {
            field.forEachValue(in: event) { value in
                var hash = ByteHash()
                var next = 0
                var consumed = 0
                for byte in value.utf8 {
                    guard next < lengths.count else { break }
                    hash.add(byte)
                    consumed += 1
                    if consumed == lengths[next] {
                        found.append(contentsOf: routes[hash.value] ?? [])
                        next += 1
                    }
                }
            }
        }
    }
}

/// FNV-1a over bytes: built incrementally while a value is walked once. Equal
/// bytes give equal hashes; a collision only makes the index try one more route.
private struct ByteHash {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(_ byte: UInt8) {
        value = (value ^ UInt64(byte)) &* 0x100_0000_01b3
    }

    static func of(_ bytes: [UInt8]) -> UInt64 {
        var hash = ByteHash()
        for byte in bytes { hash.add(byte) }
        return hash.value
    }
}

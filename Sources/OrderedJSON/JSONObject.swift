/// A JSON object whose members keep the order they were inserted in.
///
/// Members live in one array, found by a linear scan while the object is small
/// (records and events have about ten); past `indexThreshold` members a
/// dictionary from key to position is kept too, so a hostile document with many
/// keys parses in linear time. Equality and hashing ignore the order.
public struct JSONObject: Sendable, Hashable, Sequence {
    public typealias Member = (key: String, value: JSONValue)

    private(set) var members: [Member] = []
    private var index: [String: Int]?
    private static let indexThreshold = 16

    public init() {}

    /// An empty object with room for `count` members before it grows.
    public init(reservingCapacity count: Int) {
        members.reserveCapacity(count)
    }

    public init(_ members: KeyValuePairs<String, JSONValue>) {
        self.members.reserveCapacity(members.count)
        for (key, value) in members { self[key] = value }
    }

    /// The keys in insertion order.
    public var keys: [String] { members.map(\.key) }

    public var count: Int { members.count }

    /// Reading gives the member or nil; assigning nil removes the member.
    public subscript(key: String) -> JSONValue? {
        get { position(of: key).map { members[$0].value } }
        set {
            switch (position(of: key), newValue) {
            case (let found?, let value?):
                members[found].value = value
            case (nil, let value?):
                append(key, value)
            case (let found?, nil):
                members.remove(at: found)
                if index != nil { rebuildIndex() }
            case (nil, nil):
                break
            }
        }
    }

    /// Adds a member whose key the caller knows is not there yet (a `JSONMemberSink`
    /// is given each key once), without looking for it among the others.
    mutating func append(_ key: String, _ value: JSONValue) {
        assert(position(of: key) == nil, "the key '\(key)' is given twice")
        index?[key] = members.count
        members.append((key, value))
        if index == nil, members.count > Self.indexThreshold { rebuildIndex() }
    }

    public func makeIterator() -> IndexingIterator<[Member]> {
        members.makeIterator()
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.count == rhs.count && lhs.members.allSatisfy { rhs[$0.key] == $0.value }
    }

    /// Order-independent: the members' own hashes are summed.
    public func hash(into hasher: inout Hasher) {
        var sum = 0
        for member in members {
            var memberHasher = Hasher()
            memberHasher.combine(member.key)
            memberHasher.combine(member.value)
            sum &+= memberHasher.finalize()
        }
        hasher.combine(members.count)
        hasher.combine(sum)
    }

    /// Lengths are compared first: telling two different short keys apart with `==` alone
    /// takes the string comparison's slow path, and most keys differ in length.
    private func position(of key: String) -> Int? {
        if let index { return index[key] }
        let length = key.utf8.count
        return members.firstIndex { $0.key.utf8.count == length && $0.key == key }
    }

    private mutating func rebuildIndex() {
        var rebuilt: [String: Int] = [:]
        rebuilt.reserveCapacity(members.count)
        for (position, member) in members.enumerated() { rebuilt[member.key] = position }
        index = rebuilt
    }
}

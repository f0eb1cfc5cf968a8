/// Event ids, each remembered until a time of its own (milliseconds since the
/// epoch, the clock the events' times are on), to drop the copies at-least-once
/// delivery brings (a node that resent after a lost PUBACK, a broker that
/// redelivered) and replays of a signed event. Bounded in count and in bytes:
/// past either the oldest id is forgotten early, so hostile traffic cannot grow
/// it without limit.
struct RecentEventIDs {
    let capacity: Int
    let byteCapacity: Int
    private var expiry: [String: Int64] = [:]
    /// Ids in the order they were first seen, with when they are forgotten.
    private var order: [(id: String, until: Int64)] = []
    private var head = 0
    /// The bytes the remembered ids take, `entryOverhead` each included.
    private(set) var bytes = 0

    /// What an id costs beyond its own bytes: its slots in the table and the order.
    static let entryOverhead = 64

    init(capacity: Int = 200_000, byteCapacity: Int = 8 << 20) {
        self.capacity = capacity
        self.byteCapacity = byteCapacity
    }

    /// Ids remembered right now.
    var count: Int { expiry.count }

    /// The ids remembered at `now`, oldest first, with when each is forgotten.
    func entries(at now: Int64) -> [(id: String, until: Int64)] {
        order[head...].filter { expiry[$0.id] == $0.until && $0.until > now }
    }

    /// True the first time `id` is seen while it is remembered (then it is, until `until`); false for a copy.
    mutating func isFirst(_ id: String, until: Int64, now: Int64) -> Bool {
        forget(before: now)
        if let remembered = expiry[id], remembered > now { return false }
        let cost = Self.cost(id)
        while head < order.count, expiry.count >= capacity || bytes + cost > byteCapacity { forgetOldest() }
        expiry[id] = until
        order.append((id, until))
        bytes += cost
        return true
    }

    /// Forgets `id` now (its bytes go when its place in the order comes up).
    mutating func forget(_ id: String) { expiry[id] = nil }

    private static func cost(_ id: String) -> Int { id.utf8.count + entryOverhead }

    /// Forgets the ids at the front whose time is up (one remembered longer than an id
    /// behind it holds that one a little longer: only ever longer, never shorter).
    private mutating func forget(before now: Int64) {
        while head < order.count, order[head].until <= now { forgetOldest() }
    }

    private mutating func forgetOldest() {
        let oldest = order[head]
        if expiry[oldest.id] == oldest.until { expiry[oldest.id] = nil }
        bytes -= Self.cost(oldest.id)
        order[head].id = ""  // its bytes go now, not when the front is dropped
        head += 1
        // Drop the consumed front now and then, in one move, not one element at a time.
        if head >= 4096, head * 2 >= order.count {
            order.removeFirst(head)
            head = 0
        }
    }
}

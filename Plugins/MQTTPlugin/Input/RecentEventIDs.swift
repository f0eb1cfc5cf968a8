/// The event ids an input has passed on within a time window, to drop the
/// copies at-least-once delivery brings (a node that resent after a lost
/// PUBACK, a broker that redelivered) and replays of a signed event. Bounded in
/// count and in bytes: past either the oldest id is forgotten early, so hostile
/// traffic cannot grow it without limit.
struct RecentEventIDs {
    let window: Duration
    let capacity: Int
    let byteCapacity: Int
    private var expiry: [String: ContinuousClock.Instant] = [:]
    /// Ids in the order they were first seen, with when they leave the window.
    private var order: [(id: String, until: ContinuousClock.Instant)] = []
    private var head = 0
    /// The bytes the remembered ids take, `entryOverhead` each included.
    private(set) var bytes = 0

    /// What an id costs beyond its own bytes: its slots in the table and the order.
    static let entryOverhead = 64

    init(window: Duration, capacity: Int = 200_000, byteCapacity: Int = 8 << 20) {
        self.window = window
        self.capacity = capacity
        self.byteCapacity = byteCapacity
    }

    /// Ids remembered right now.
    var count: Int { expiry.count }

    /// True the first time `id` is seen within the window (then it is remembered), false for a copy.
    mutating func isFirst(_ id: String, at now: ContinuousClock.Instant = .now) -> Bool {
        forget(before: now)
        if let until = expiry[id], until > now { return false }
        let cost = Self.cost(id)
        while head < order.count, expiry.count >= capacity || bytes + cost > byteCapacity { forgetOldest() }
        let until = now + window
        expiry[id] = until
        order.append((id, until))
        bytes += cost
        return true
    }

    private static func cost(_ id: String) -> Int { id.utf8.count + entryOverhead }

    private mutating func forget(before now: ContinuousClock.Instant) {
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

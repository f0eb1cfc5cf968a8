/// The ordered backlog of messages the connection owes the broker.
///
/// An item is *queued* until it is handed to libmosquitto on a live
/// connection, then *in flight* under that connection's message id until
/// its acknowledgement (PUBACK/PUBCOMP, or for QoS 0 the socket write).
/// When the connection ends, whatever is still in flight goes back to the
/// front of the queue in its original order, so the next connection sends
/// it again before anything newer: delivery is at least once and in order.
/// Only queued items can be withdrawn, so an item is never both handed back
/// to the caller and still owned by libmosquitto.
struct Outbox<Item: Sendable>: Sendable {
    /// Identifies one item for the caller; increases with every append.
    typealias Ticket = UInt64

    struct Entry: Sendable {
        let ticket: Ticket
        var item: Item
    }

    private var queue: [Entry] = []
    private var head = 0
    private var inFlight: [Int32: Entry] = [:]
    private var nextTicket: Ticket = 1

    /// Items not yet acknowledged (queued and in flight).
    var count: Int { queue.count - head + inFlight.count }
    var inFlightCount: Int { inFlight.count }
    var queuedCount: Int { queue.count - head }

    /// Adds an item at the back.
    mutating func append(_ item: Item) -> Ticket {
        defer { nextTicket += 1 }
        queue.append(Entry(ticket: nextTicket, item: item))
        return nextTicket
    }

    /// Takes the oldest queued item to send, if fewer than `window` are in flight.
    mutating func takeNext(window: Int) -> Entry? {
        guard inFlight.count < window, head < queue.count else { return nil }
        defer {
            head += 1
            compact()
        }
        return queue[head]
    }

    /// Puts back an entry `takeNext` gave out that could not be sent, at the front.
    mutating func putBack(_ entry: Entry) {
        if head > 0 {
            head -= 1
            queue[head] = entry
        } else {
            queue.insert(entry, at: 0)
        }
    }

    /// Records that `entry` went to libmosquitto under message id `mid`.
    mutating func sent(_ entry: Entry, mid: Int32) {
        inFlight[mid] = entry
    }

    /// The acknowledgement for `mid` arrived: the item is delivered.
    mutating func acknowledged(mid: Int32) -> Entry? {
        inFlight.removeValue(forKey: mid)
    }

    /// The connection ended: everything in flight is queued again, oldest
    /// first, ahead of what was never sent.
    mutating func connectionEnded() {
        guard !inFlight.isEmpty else { return }
        let returning = inFlight.values.sorted { $0.ticket < $1.ticket }
        inFlight.removeAll()
        queue = returning + queue[head...]
        head = 0
    }

    /// Removes and returns the queued items `shouldRemove` picks (never one in flight).
    mutating func withdraw(where shouldRemove: (Entry) -> Bool) -> [Entry] {
        guard queue[head...].contains(where: shouldRemove) else { return [] }
        var removed: [Entry] = []
        var kept: [Entry] = []
        for entry in queue[head...] {
            if shouldRemove(entry) { removed.append(entry) } else { kept.append(entry) }
        }
        guard !removed.isEmpty else { return [] }
        queue = kept
        head = 0
        return removed
    }

    /// Removes and returns every item, queued and in flight, oldest first.
    mutating func removeAll() -> [Entry] {
        let all = (inFlight.values + queue[head...]).sorted { $0.ticket < $1.ticket }
        inFlight.removeAll()
        queue.removeAll()
        head = 0
        return all
    }

    private mutating func compact() {
        if head > 256, head * 2 > queue.count {
            queue.removeFirst(head)
            head = 0
        }
    }
}

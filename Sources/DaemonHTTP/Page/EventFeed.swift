import FoundationEssentials
import Lifecycle
import OrderedJSON
import Synchronization
import TagRouter

/// `/api/events` for one client: server-sent events with the records
/// `RecentRecords` kept, then every new one (`event: record`), and the daemon's
/// status (`event: status`:
/// at once, every `statusInterval`, and soon after records, at most every
/// `statusAfterRecords`). A client too slow to read loses the oldest records
/// (`event: dropped`); the daemon never waits.
final class EventFeed: ResponseStream {
    /// Records kept for a client that reads slowly.
    static let capacity = 4096
    static let statusInterval: Duration = .seconds(2)
    static let statusAfterRecords: Duration = .milliseconds(200)

    /// What the connection's thread alone touches: bytes not sent yet, and when the status was last sent and is due.
    private struct Outbox {
        var pending: [UInt8] = []
        var statusSent = ContinuousClock.now - statusInterval
        var statusDue = ContinuousClock.now
    }

    private let observer: DaemonObserver
    private let recent: RecentRecords
    /// Records pushed by the observer (never waiting), taken by the connection's thread.
    private let inbox = BoundedQueue<ObservedRecord>(capacity: capacity)
    private let outbox = Mutex(Outbox())
    private let watcher = Mutex<Int?>(nil)

    init(observer: DaemonObserver, recent: RecentRecords) {
        self.observer = observer
        self.recent = recent
        let id = recent.follow { [inbox] record in inbox.push(record) }
        watcher.withLock { $0 = id }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        outbox.withLock { outbox in
            while outbox.pending.isEmpty {
                guard fill(&outbox) else { return nil }
            }
            let count = min(buffer.count, outbox.pending.count)
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: outbox.pending.withUnsafeBytes { $0 }[0..<count]))
            outbox.pending.removeFirst(count)
            return count
        }
    }

    func finish() {
        let id = watcher.withLock { id in defer { id = nil }; return id }
        guard let id else { return }
        recent.unfollow(id)
        inbox.finish()
    }

    /// Puts the next thing to say in `outbox.pending`, waiting for it when there is
    /// nothing yet; false once the feed has finished.
    private func fill(_ outbox: inout Outbox) -> Bool {
        let (records, dropped) = inbox.take(waiting: max(.zero, outbox.statusDue - .now))
        if inbox.isFinished { return false }
        if dropped > 0 { outbox.pending += Self.message("dropped", .object(JSONObject(["count": .int(Int64(dropped))]))) }
        for record in records { outbox.pending += Self.message("record", record.json) }
        if !records.isEmpty { outbox.statusDue = min(outbox.statusDue, outbox.statusSent + Self.statusAfterRecords) }
        let now = ContinuousClock.now
        if now >= outbox.statusDue {
            outbox.pending += Self.message("status", observer.status.json)
            outbox.statusSent = now
            outbox.statusDue = now + Self.statusInterval
        }
        return true
    }

    private static func message(_ name: String, _ data: JSONValue) -> [UInt8] {
        Array("event: \(name)\ndata: \(data.serialized())\n\n".utf8)
    }
}

import Synchronization
import TagCore

/// The daemon's readers as a `TagJobRunner`: one `TagJobQueue` per reader name,
/// kept across reloads (a reader restarted with new settings takes the jobs
/// waiting for it). A job names its reader by name or by device; one for a
/// reader that is not configured is refused at once. A write that brings no
/// password gets the daemon's (`tag_password_file`), if it has one.
public final class ReaderJobBoard: TagJobRunner {
    private struct Entry {
        var deviceKey: String
        let queue: TagJobQueue
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let tagPassword = Mutex<TagPassword?>(nil)

    public init() {}

    /// The queue of `reader`, made on first use.
    public func queue(for reader: ReaderConfig) -> TagJobQueue {
        entries.withLock { entries in
            let key = DeviceLock.key(for: reader.device)
            if let entry = entries[reader.name] {
                entries[reader.name]?.deviceKey = key
                return entry.queue
            }
            let queue = TagJobQueue(reader: reader.name)
            entries[reader.name] = Entry(deviceKey: key, queue: queue)
            return queue
        }
    }

    /// The password for writes that bring none (the config's, after each load).
    public func use(tagPassword password: TagPassword?) {
        tagPassword.withLock { $0 = password }
    }

    /// Has a queue for each of `readers` and no other: the jobs waiting for any other reader are refused.
    public func configure(_ readers: [ReaderConfig]) {
        for reader in readers { _ = queue(for: reader) }
        let names = Set(readers.map(\.name))
        let dropped = entries.withLock { entries in
            let dropped = entries.filter { !names.contains($0.key) }
            for name in dropped.keys { entries[name] = nil }
            return dropped
        }
        for (name, entry) in dropped {
            entry.queue.refuseAll(TagJobRefusal(.noReader, "reader '\(name)' was removed from the config"))
        }
    }

    @discardableResult
    public func submit(_ job: TagJob, reader: String?, answer: @escaping @Sendable (TagJobResult) -> Void) -> TagJobHandle {
        var job = job
        if case .write(var order) = job.work, order.password == nil {
            order.password = tagPassword.withLock { $0 }
            job.work = .write(order)
            if order.protect, order.password == nil {
                answer(.refused(TagJobRefusal(.badRequest, "protecting a tag needs a password, and the daemon has none: set `tag_password_file` in its config")))
                return TagJobHandle {}
            }
        }
        let (queue, known) = entries.withLock { entries in
            let queue: TagJobQueue?
            if let reader {
                let key = DeviceLock.key(for: reader)
                queue = entries[reader]?.queue ?? entries.values.first { $0.deviceKey == key }?.queue
            } else {
                queue = entries.count == 1 ? entries.values.first?.queue : nil
            }
            return (queue, entries.keys.sorted())
        }
        guard let queue else {
            let names = known.isEmpty ? "none" : known.map { "'\($0)'" }.joined(separator: ", ")
            let what = reader.map { "no reader '\($0)' runs in the daemon" } ?? "the daemon runs \(known.count) readers; name one"
            answer(.refused(TagJobRefusal(.noReader, "\(what) (its readers: \(names))")))
            return TagJobHandle {}
        }
        return queue.submit(job, answer: answer)
    }
}

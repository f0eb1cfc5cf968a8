@preconcurrency import Glibc
import FoundationEssentials
import Dispatch
import OrderedJSON
import Synchronization
import SystemKit
import TagCore

/// One action's write-ahead log: the deliveries accepted for it and not yet
/// done, in order, on disk.
///
/// Entries are written in batches (group commit): one file `<sequence of its
/// first entry, 20 digits>.json` per batch, one line `{"route", "event"}` per
/// entry (an entry's sequence is the file's plus its line index), written to a
/// temporary name, flushed with `fsync`, renamed into place and the directory
/// flushed — two `fsync`s however many entries the batch holds, and a crash at
/// any point leaves either the whole batch or none of it.
///
/// An entry is done once delivered or failed for good. `markDone` records the
/// sequence through which every entry is done in the file `delivered` and
/// deletes each batch whose entries are all done. `delivered` is written without
/// `fsync`: it survives the process being killed, but after a power loss it may
/// be behind and those entries are delivered again — at least once.
final class Spool: Sendable {
    /// A spooled delivery and its place in the spool.
    struct Entry: Sendable {
        let sequence: UInt64
        let delivery: Delivery
    }

    private typealias Batch = SpoolBookkeeping.Batch

    private struct State {
        /// The batch files on disk, oldest first, from `head` on: those before it
        /// are done and deleted, and forgotten now and then (`markDone`), not one
        /// by one — each removal from the front would move every batch behind it.
        var batches: [Batch] = []
        var head = 0
        var nextSequence: UInt64 = 1
        /// The open `delivered` file, or -1.
        var deliveredFile: Int32 = -1
    }

    let directory: String
    private let state = Mutex(State())
    /// Where `write` runs `append`: an `fsync` blocks, and must not hold a thread of the Swift concurrency pool.
    private let writer = DispatchQueue(label: "tagrouter.spool")

    init(directory: String) { self.directory = directory }

    deinit {
        state.withLock { if $0.deliveredFile >= 0 { close($0.deliveredFile) } }
    }

    /// Where the spool of the action `id` is kept.
    static func directory(of id: String, under stateDirectory: String) -> String { stateDirectory + "/spool/" + id }

    /// The spools under `stateDirectory` holding entries not yet done, by action
    /// id, with how many each holds; read without changing anything.
    static func waiting(under stateDirectory: String) -> [(id: String, count: Int)] {
        let ids = (try? FileManager.default.contentsOfDirectory(atPath: stateDirectory + "/spool")) ?? []
        return ids.sorted().compactMap { id in
            let count = Spool(directory: directory(of: id, under: stateDirectory)).waitingCount
            return count > 0 ? (id, count) : nil
        }
    }

    /// Entries on disk not yet done (counted by lines; nothing is parsed or changed).
    var waitingCount: Int {
        let bookkeeping = SpoolBookkeeping(names: names, delivered: readDelivered()) { name in
            Self.readFile(directory + "/" + name).map { data in data.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) } }
        }
        return bookkeeping.waiting.reduce(0) { $0 + Int($1.upperBound - $1.lowerBound + 1) }
    }

    private var names: [String] { (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] }

    /// Checks at start that spools can be kept under `stateDirectory`: creates
    /// `<stateDirectory>/spool`, checks that only `owner` (the daemon's user) can
    /// write it, `stateDirectory` or an action's spool there (see `checkFolder`),
    /// and writes and removes a probe file there.
    static func checkWritable(stateDirectory: String, owner: uid_t = geteuid()) throws(SpoolError) {
        let spools = stateDirectory + "/spool"
        try createDirectory(spools)
        try checkFolder(stateDirectory, owner: owner, following: true)
        try checkFolder(spools, owner: owner, following: false)
        for id in ((try? FileManager.default.contentsOfDirectory(atPath: spools)) ?? []).sorted() where !id.hasPrefix(".") {
            try checkFolder(spools + "/" + id, owner: owner, following: false)
        }
        let probe = spools + "/.probe-\(getpid()).tmp"
        defer { unlink(probe) }
        try writeFile(Array("probe\n".utf8), to: probe, sync: false)
    }

    /// Refuses a folder another user could plant files or symlinks in (`StateFolder.problem`).
    private static func checkFolder(_ path: String, owner: uid_t, following: Bool) throws(SpoolError) {
        if let problem = StateFolder.problem(path, owner: owner, following: following) {
            throw SpoolError(path: path, operation: "check folder", reason: problem)
        }
    }

    /// The entries waiting on disk, oldest first, as ranges of their sequences
    /// (one per run of batches without a gap); call once, before `append`.
    /// Each batch is read to check it, one at a time, and only its first and last
    /// sequence kept: however many entries an outage left, recovering them costs
    /// no memory; `read` brings them back in turn.
    /// Leftovers of unfinished writes are deleted (they were never accepted);
    /// a damaged or impossible batch or `delivered` is moved aside (`*.bad`, kept
    /// for a human) and logged with the reason (see `SpoolBookkeeping`).
    func recover() -> [ClosedRange<UInt64>] {
        let bookkeeping = SpoolBookkeeping(names: names, delivered: readDelivered()) { Self.readBatch(directory + "/" + $0)?.count }
        for name in bookkeeping.deleted { unlink(directory + "/" + name) }
        for file in bookkeeping.quarantined { quarantine(directory + "/" + file.name, reason: file.reason) }
        let deliveredFile = bookkeeping.keepsDelivered ? openDelivered() : -1
        state.withLock { state in
            state.batches = bookkeeping.batches
            state.head = 0
            state.nextSequence = bookkeeping.nextSequence
            state.deliveredFile = deliveredFile
        }
        return bookkeeping.waiting
    }

    /// Moves a file the spool cannot trust aside (`*.bad`), and says which and why.
    private func quarantine(_ path: String, reason: String) {
        rename(path, path + ".bad")
        Log.error("spool file moved aside", JSONObject(["file": .string(path), "moved_to": .string(path + ".bad"), "reason": .string(reason)]))
    }

    /// Writes `deliveries` as one batch behind what is there, durably; throws
    /// when the disk refuses (then nothing of the batch is in the spool).
    func append(_ deliveries: [Delivery]) throws(SpoolError) -> [Entry] {
        guard !deliveries.isEmpty else { return [] }
        let first = state.withLock { $0.nextSequence }
        guard UInt64(deliveries.count) <= SpoolBookkeeping.maximumSequence &- first &+ 1, first <= SpoolBookkeeping.maximumSequence else {
            throw SpoolError(
                path: directory, operation: "append",
                reason: "its sequences are used up (the highest is \(SpoolBookkeeping.maximumSequence)); move the spool folder aside")
        }
        var text = ""
        for delivery in deliveries {
            text += JSONValue.object(JSONObject(["route": .string(delivery.route), "event": delivery.eventJSON])).serialized()
            text += "\n"
        }
        let (path, temporary) = (batchPath(first), directory + "/." + Self.batchName(first) + ".tmp")
        do throws(SpoolError) {
            try Self.createDirectory(directory)
            try Self.writeFile(Array(text.utf8), to: temporary, sync: true)
            guard rename(temporary, path) == 0 else { throw SpoolError(path: temporary, operation: "rename") }
            try syncDirectory()
        } catch {
            unlink(temporary)
            throw error
        }
        let last = first + UInt64(deliveries.count) - 1
        state.withLock { state in
            state.batches.append(Batch(first: first, last: last))
            state.nextSequence = last + 1
        }
        return deliveries.enumerated().map { Entry(sequence: first + UInt64($0.offset), delivery: $0.element) }
    }

    /// `append` on the spool's own thread.
    func write(_ deliveries: [Delivery]) async -> Result<[Entry], SpoolError> {
        await withCheckedContinuation { continuation in
            writer.async { continuation.resume(returning: Result { () throws(SpoolError) in try self.append(deliveries) }) }
        }
    }

    /// Reads back entries of `range` (written by `append`, not yet done), oldest
    /// first, a whole batch at a time until at least `atLeast` entries or the end
    /// of `range`; returns them and the last sequence they cover. A batch that
    /// cannot be read is moved aside (`*.bad`) and logged, its entries skipped.
    func read(_ range: ClosedRange<UInt64>, atLeast: Int) -> (entries: [Entry], through: UInt64) {
        let batches = state.withLock { state -> [Batch] in
            // The batches are in order: find the first that reaches `range` by bisection.
            var (low, high) = (state.head, state.batches.count)
            while low < high {
                let middle = (low + high) / 2
                if state.batches[middle].last < range.lowerBound { low = middle + 1 } else { high = middle }
            }
            var covering: [Batch] = []
            var count = 0
            while low < state.batches.count, state.batches[low].first <= range.upperBound, count < atLeast {
                let batch = state.batches[low]
                covering.append(batch)
                count += Int(min(batch.last, range.upperBound) - max(batch.first, range.lowerBound) + 1)
                low += 1
            }
            return covering
        }
        guard let lastBatch = batches.last else { return ([], range.upperBound) }
        var entries: [Entry] = []
        for batch in batches {
            let path = batchPath(batch.first)
            guard let deliveries = Self.readBatch(path) else {
                quarantine(path, reason: SpoolBookkeeping.unreadableBatch)
                continue
            }
            for (offset, delivery) in deliveries.enumerated() where range.contains(batch.first + UInt64(offset)) {
                entries.append(Entry(sequence: batch.first + UInt64(offset), delivery: delivery))
            }
        }
        return (entries, min(lastBatch.last, range.upperBound))
    }

    /// Records that every entry up to `sequence` is done (delivered, or failed
    /// for good), deleting the batches that are done. Only an entry in the
    /// middle of a batch costs a write (`delivered`), without `fsync`.
    func markDone(through sequence: UInt64) {
        state.withLock { state in
            while state.head < state.batches.count, state.batches[state.head].last <= sequence {
                unlink(batchPath(state.batches[state.head].first))
                state.head += 1
            }
            if state.head == state.batches.count {
                state.batches.removeAll(keepingCapacity: state.batches.capacity <= 256)
                state.head = 0
                guard state.deliveredFile >= 0 else { return }
                close(state.deliveredFile)
                state.deliveredFile = -1
                unlink(deliveredPath)
                return
            }
            if state.head > 64, state.head * 2 > state.batches.count {
                state.batches.removeFirst(state.head)
                state.head = 0
            }
            if state.batches[state.head].first <= sequence {
                if state.deliveredFile < 0 { state.deliveredFile = openDelivered() }
                // A write that fails only means these entries are delivered again after a crash: at least once.
                let line = Array((String(sequence).leftPadded(toLength: 20, with: "0") + "\n").utf8)
                _ = line.withUnsafeBytes { pwrite(state.deliveredFile, $0.baseAddress, $0.count, 0) }
            }
        }
    }

    private var deliveredPath: String { directory + "/delivered" }

    /// `delivered`, open while it exists (so it is deleted with the last batch); never through a symlink.
    private func openDelivered() -> Int32 { open(deliveredPath, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600) }

    private static func batchName(_ first: UInt64) -> String { String(first).leftPadded(toLength: 20, with: "0") + ".json" }

    private func batchPath(_ first: UInt64) -> String { directory + "/" + Self.batchName(first) }

    /// `delivered`'s bytes; nil when there is none, empty when it is there but not a readable regular file.
    private func readDelivered() -> [UInt8]? {
        var status = stat()
        guard lstat(deliveredPath, &status) == 0 else { return nil }
        return Self.readFile(deliveredPath, limit: 64) ?? []
    }

    /// The bytes of the regular file at `path` (up to `limit`) that only the daemon's
    /// user can write — its own record, trusted as such (`readBatch`) — never through a
    /// symlink nor blocking on a FIFO; nil when it is anything else or unreadable.
    private static func readFile(_ path: String, limit: Int = .max) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_uid == geteuid(), status.st_mode & 0o022 == 0
        else { return nil }
        return FileBytes.read(descriptor: descriptor, limit: limit)
    }

    /// A batch's deliveries, or nil when any line of it cannot be read.
    private static func readBatch(_ path: String) -> [Delivery]? {
        guard let data = readFile(path) else { return nil }
        var deliveries: [Delivery] = []
        for line in data.split(separator: UInt8(ascii: "\n")) {
            // The spool is the daemon's own record (see `checkWritable`): `tag.sun` and `tag.genuine` come back as routed.
            guard let json = try? JSONValue.parse(String(decoding: line, as: UTF8.self)),
                let event = try? TagEvent(json: json["event"] ?? .null, trust: .ownRecord)
            else { return nil }
            deliveries.append(Delivery(event: event, route: json["route"]?.stringValue ?? ""))
        }
        return deliveries.isEmpty ? nil : deliveries
    }

    /// `mkdir -p`, naming the part that could not be made and why.
    private static func createDirectory(_ path: String) throws(SpoolError) {
        do {
            try StateFolder.create(path)
        } catch {
            throw SpoolError(path: error.path, operation: "create directory", reason: error.reason)
        }
    }

    /// Writes a new file at `path`, a temporary name: whatever has that name (a
    /// leftover, a planted symlink) is removed first, and a file created meanwhile is an error, never followed.
    private static func writeFile(_ bytes: [UInt8], to path: String, sync: Bool) throws(SpoolError) {
        unlink(path)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw SpoolError(path: path, operation: "open") }
        defer { close(descriptor) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                throw SpoolError(path: path, operation: "write")
            }
            offset += written
        }
        guard !sync || fsync(descriptor) == 0 else { throw SpoolError(path: path, operation: "fsync") }
    }

    private func syncDirectory() throws(SpoolError) {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw SpoolError(path: directory, operation: "open directory") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw SpoolError(path: directory, operation: "fsync directory") }
    }
}

/// The spool could not be written; `errno` at the time says why.
struct SpoolError: Error, CustomStringConvertible {
    let path: String
    let operation: String
    let reason: String

    init(path: String, operation: String) {
        self.path = path
        self.operation = operation
        self.reason = String(cString: strerror(errno))
    }

    init(path: String, operation: String, reason: String) {
        self.path = path
        self.operation = operation
        self.reason = reason
    }

    var description: String { "spool: \(operation) \(path): \(reason)" }
}

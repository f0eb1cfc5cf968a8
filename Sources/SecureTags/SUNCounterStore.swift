import Glibc
import OrderedJSON
import Synchronization
import SystemKit
import TagCore

/// The last read counter accepted per UID, kept in the state folder
/// (`sun-counters.json`) so that a copied SUN URL is refused as a replay, also
/// after a restart. A counter is written ahead: the file is replaced (temporary
/// file, `fsync`, rename, `fsync` of the folder) before the tap counts, so a
/// crash can lose a tap but never let its URL be replayed.
///
/// The store fails closed: the folder must be one only the daemon's user can
/// write (another user could replace the file with `{}`); the file is read
/// without following a symlink or blocking on a named pipe, and only when it is
/// a regular file; and once a store was written, a marker beside it
/// (`sun-counters.kept`) makes its disappearance damage, not a fresh start.
public final class SUNCounterStore: Sendable {
    /// The file's path.
    public let path: String
    /// The marker that says a store was written here.
    let markerPath: String
    private let counters: Mutex<[String: Int]>
    private let marked: Atomic<Bool>

    /// At most this many UIDs are remembered; only tags that passed the MAC check are, so a stranger cannot fill it.
    public static let limit = 100_000
    /// The file is read whole; a longer one is damaged.
    static let maximumFileBytes = 8 << 20

    /// The store of `stateDirectory`, read from its file when there is one. A file that cannot be
    /// read is an error, not an empty store: an empty one would accept every replay. So is a missing
    /// file where one was written before, and — `checkingFolder`, the daemon's case — a folder
    /// another user could write (it is created, private, when missing). Without `checkingFolder`
    /// (`check-config`, previews) the store is only read.
    public init(stateDirectory: String, checkingFolder: Bool = true) throws(SUNStoreError) {
        path = stateDirectory + "/sun-counters.json"
        markerPath = stateDirectory + "/sun-counters.kept"
        if checkingFolder {
            do {
                try StateFolder.prepare(stateDirectory)
            } catch {
                throw SUNStoreError(path: path, problem: "cannot be kept safely: state_dir \(error.path): \(error.reason)")
            }
        }
        let loaded = try Self.load(path)
        let marked = access(markerPath, F_OK) == 0
        if loaded == nil, marked {
            throw SUNStoreError(
                path: path, problem: "is missing, but one was written here (\(markerPath) says so): every URL it refused would verify once more; "
                    + "restore it from a backup, or remove \(markerPath) to start afresh")
        }
        counters = Mutex(loaded ?? [:])
        self.marked = Atomic(marked)
    }

    /// Accepts `counter` for `uid` when it is above the last accepted one and writes it ahead;
    /// false for a replay (a counter already seen or an older one).
    public func accept(uid: String, counter: Int) throws(SUNStoreError) -> Bool {
        let snapshot: [String: Int]? = counters.withLock { counters in
            if let last = counters[uid], counter <= last { return nil }
            if counters[uid] == nil, counters.count >= Self.limit { return nil }
            counters[uid] = counter
            return counters
        }
        guard let snapshot else { return false }
        try Self.save(snapshot, to: path)
        if !marked.load(ordering: .relaxed) {
            try Self.mark(markerPath)
            marked.store(true, ordering: .relaxed)
        }
        return true
    }

    /// Creates the marker that says a store was written here (after the store: a crash in between
    /// leaves a store without its marker, made at the next save, never a marker without a store).
    private static func mark(_ path: String) throws(SUNStoreError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o600)
        guard descriptor >= 0 else { throw SUNStoreError(path: path, problem: "cannot be created (\(String(cString: strerror(errno))))") }
        close(descriptor)
        syncFolder(of: path)
    }

    private static func syncFolder(of path: String) {
        let folder = open(String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
    }

    /// The last counter accepted for `uid`.
    public func lastCounter(uid: String) -> Int? { counters.withLock { $0[uid] } }

    /// The counters in the file, nil when there is none.
    private static func load(_ path: String) throws(SUNStoreError) -> [String: Int]? {
        let read: [UInt8]?
        do {
            read = try StateFolder.read(path, limit: maximumFileBytes)
        } catch {
            throw SUNStoreError(path: path, problem: error.reason)
        }
        guard let bytes = read else { return nil }
        let value: JSONValue
        do { value = try JSONValue.parse(bytes: bytes) } catch {
            throw SUNStoreError(path: path, problem: "is damaged: \(error)")
        }
        guard case .object(let object) = value else { throw SUNStoreError(path: path, problem: "is damaged: not a JSON object") }
        var counters: [String: Int] = [:]
        for (uid, counter) in object {
            guard case .int(let number) = counter, number >= 0, number <= 0xFF_FFFF, TagUID(uid) != nil
            else { throw SUNStoreError(path: path, problem: "is damaged at \(uid): not a UID with a 24-bit counter") }
            counters[uid] = Int(number)
        }
        return counters
    }

    private static func save(_ counters: [String: Int], to path: String) throws(SUNStoreError) {
        var object = JSONObject(reservingCapacity: counters.count)
        for (uid, counter) in counters.sorted(by: { $0.key < $1.key }) { object.member(uid, .int(Int64(counter))) }
        let bytes = Array(JSONValue.object(object).serialized().utf8)
        do {
            try FileReplacement.write(bytes, to: path, ownership: .init(owner: geteuid(), group: getegid(), mode: 0o600))
        } catch {
            throw SUNStoreError(path: path, problem: "cannot be written (\(error))")
        }
        syncFolder(of: path)
    }
}

/// Why the SUN counter file could not be read or written.
public struct SUNStoreError: Error, Sendable, CustomStringConvertible {
    public let path: String
    public let problem: String

    public var description: String { "SUN counter file \(path) \(problem)" }
}

import Glibc
import OrderedJSON
import Synchronization
import TagCore

/// The last read counter accepted per UID, kept in the state folder
/// (`sun-counters.json`) so that a copied SUN URL is refused as a replay, also
/// after a restart. A counter is written ahead: the file is replaced (temporary
/// file, `fsync`, rename, `fsync` of the folder) before the tap counts, so a
/// crash can lose a tap but never let its URL be replayed.
public final class SUNCounterStore: Sendable {
    /// The file's path.
    public let path: String
    private let counters: Mutex<[String: Int]>

    /// At most this many UIDs are remembered; only tags that passed the MAC check are, so a stranger cannot fill it.
    public static let limit = 100_000
    /// The file is read whole; a longer one is damaged.
    static let maximumFileBytes = 8 << 20

    /// The store of `stateDirectory`, read from its file when there is one.
    /// A file that cannot be read is an error, not an empty store: an empty one would accept every replay.
    public init(stateDirectory: String) throws(SUNStoreError) {
        path = stateDirectory + "/sun-counters.json"
        counters = Mutex(try Self.load(path))
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
        return true
    }

    /// The last counter accepted for `uid`.
    public func lastCounter(uid: String) -> Int? { counters.withLock { $0[uid] } }

    private static func load(_ path: String) throws(SUNStoreError) -> [String: Int] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        if descriptor < 0 {
            if errno == ENOENT { return [:] }
            throw SUNStoreError(path: path, problem: "cannot be opened (\(String(cString: strerror(errno))))")
        }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count >= 0 else { throw SUNStoreError(path: path, problem: "cannot be read") }
            if count == 0 { break }
            bytes += chunk.prefix(count)
            guard bytes.count <= maximumFileBytes else { throw SUNStoreError(path: path, problem: "is larger than \(maximumFileBytes) bytes") }
        }
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
        let temporary = path + ".tmp"
        unlink(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw SUNStoreError(path: temporary, problem: "cannot be created (\(String(cString: strerror(errno))))") }
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == bytes.count, synced, rename(temporary, path) == 0
        else { throw SUNStoreError(path: path, problem: "cannot be written (\(String(cString: strerror(errno))))") }
        let folder = open(String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
    }
}

/// Why the SUN counter file could not be read or written.
public struct SUNStoreError: Error, Sendable, CustomStringConvertible {
    public let path: String
    public let problem: String

    public var description: String { "SUN counter file \(path) \(problem)" }
}

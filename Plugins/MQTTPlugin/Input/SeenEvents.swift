@preconcurrency import Glibc
import OrderedJSON
import Synchronization
import SystemKit

/// The event ids the `mqtt` inputs of this daemon have routed, one record that
/// every input shares and that outlives a restart: a copy or a replay of an
/// event is dropped whichever input it arrives on, and also after the daemon
/// was restarted, for as long as the event could still be admitted (its time
/// plus `max_age`, at least `dedup` from its arrival; docs/security.md).
///
/// Kept in `state_dir/seen-events`, one line per id — its end in milliseconds
/// since the epoch and the id's bytes in hex — appended once the router has
/// accepted the event (`record`). The folder must be one only the daemon's user can write, and the file
/// is opened as the spool's are (no symlink followed, nothing but a regular
/// file). It is read at start, without the ids whose time is up, and rewritten
/// whole (temporary file, rename) at start and whenever it holds mostly
/// forgotten lines. Lines are not `fsync`ed one by one: they survive the
/// daemon's crash or restart (the kernel holds them), not a power loss.
final class SeenEvents: Sendable {
    /// The file's name in `state_dir`.
    static let fileName = "seen-events"
    /// The longest file read: more than the memory bound's worth of lines, twice over.
    static let fileLimit = 32 << 20

    let path: String
    private struct State {
        var recent = RecentEventIDs()
        var descriptor: Int32 = -1
        var lines = 0
        var failures = 0
        var lastFailureLogged = Int64.min / 2
        /// The ids admitted and not yet accepted, with the reception that admitted each.
        var pending: [String: Int] = [:]
    }
    private let state: Mutex<State>

    /// The record of `stateDirectory`, shared with every input of this process that uses that
    /// folder: the one already open, else read from its file (made when there is none).
    static func shared(stateDirectory: String, now: Int64 = SeenEvents.now()) throws(StateFolder.Problem) -> SeenEvents {
        let path = stateDirectory + "/" + fileName
        return try registry.withLock { (open: inout [String: WeakReference]) throws(StateFolder.Problem) -> SeenEvents in
            if let seen = open[path]?.value { return seen }
            try StateFolder.prepare(stateDirectory)
            let seen = try SeenEvents(path: path, now: now)
            open = open.filter { $0.value.value != nil }
            open[path] = WeakReference(value: seen)
            return seen
        }
    }

    private struct WeakReference: Sendable {
        weak var value: SeenEvents?
    }

    private static let registry = Mutex<[String: WeakReference]>([:])

    private init(path: String, now: Int64) throws(StateFolder.Problem) {
        self.path = path
        var state = State()
        for line in try Self.load(path) { _ = state.recent.isFirst(line.id, until: line.until, now: now) }
        state.descriptor = try Self.rewrite(path, state.recent.entries(at: now))
        state.lines = state.recent.count
        self.state = Mutex(state)
    }

    deinit {
        state.withLock { state in
            if state.descriptor >= 0 { close(state.descriptor) }
        }
    }

    /// Now, in milliseconds since the epoch.
    static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }

    /// True the first time `id` is seen while it is remembered (then it is, until `until`,
    /// milliseconds since the epoch, as admitted by `reception`); false for a copy. In memory:
    /// `record` writes it down once its event is accepted.
    func isFirst(_ id: String, until: Int64, reception: Int, now: Int64 = SeenEvents.now()) -> Bool {
        state.withLock { state in
            guard state.recent.isFirst(id, until: until, now: now) else { return false }
            state.pending[id] = reception
            return true
        }
    }

    /// Forgets the ids `reception` admitted whose events were not accepted (yet): its input
    /// stopped without acknowledging them, so the broker sends them again, to be routed then.
    /// One accepted later is remembered again by `record`.
    func forgetUnaccepted(reception: Int) {
        state.withLock { state in
            for (id, admitter) in state.pending where admitter == reception {
                state.recent.forget(id)
                state.pending[id] = nil
            }
        }
    }

    /// A number for each reception desk, to tell whose ids are pending.
    static func nextReception() -> Int { receptions.add(1, ordering: .relaxed).newValue }
    private static let receptions = Atomic<Int>(0)

    /// Writes `id` down, remembered until `until`, once its event is accepted: read back after a
    /// restart, it makes a copy sent then a copy too. An event not yet accepted when the daemon
    /// died is not written down, so the broker's redelivery of it is routed, not dropped.
    /// A line that cannot be written is logged (at most once a minute): the id is still
    /// remembered until the daemon stops, but a restart forgets it.
    func record(_ id: String, until: Int64, now: Int64 = SeenEvents.now()) {
        state.withLock { state in
            if state.pending.removeValue(forKey: id) == nil { _ = state.recent.isFirst(id, until: until, now: now) }
            do throws(StateFolder.Problem) {
                if state.lines > 2 * state.recent.count + 1024 {
                    let fresh = try Self.rewrite(path, state.recent.entries(at: now))
                    close(state.descriptor)
                    state.descriptor = fresh
                    state.lines = state.recent.count
                } else {
                    try Self.append(Array(Self.line(id, until: until).utf8), to: state.descriptor, path: path)
                    state.lines += 1
                }
            } catch {
                state.failures += 1
                guard now - state.lastFailureLogged >= 60_000 else { return }
                state.lastFailureLogged = now
                Log.error("an event id could not be written down: a copy sent after a restart would be routed again", JSONObject([
                    "file": .string(path), "reason": .string(error.reason), "failures": .int(Int64(state.failures)),
                ]))
            }
        }
    }

    private static func line(_ id: String, until: Int64) -> String {
        let digits = Array("0123456789abcdef")
        var line = String(until) + " "
        for byte in id.utf8 {
            line.append(digits[Int(byte >> 4)])
            line.append(digits[Int(byte & 0xF)])
        }
        return line + "\n"
    }

    /// The lines of the file at `path` (none when there is no file). A last line without its
    /// newline is a write the daemon did not finish, and left out; any other line that does not
    /// read is damage, and an error.
    private static func load(_ path: String) throws(StateFolder.Problem) -> [(id: String, until: Int64)] {
        guard let bytes = try StateFolder.read(path, limit: fileLimit) else { return [] }
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        lines.removeLast()  // after the last newline: empty, or an unfinished write
        var entries: [(id: String, until: Int64)] = []
        for (index, line) in lines.enumerated() {
            guard let entry = entry(line) else {
                throw StateFolder.Problem(
                    path: path, reason: "is damaged at line \(index + 1); remove it only if you accept that the events of the last max_age may be replayed once")
            }
            entries.append(entry)
        }
        return entries
    }

    private static func entry(_ line: ArraySlice<UInt8>) -> (id: String, until: Int64)? {
        let fields = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard fields.count == 2, let until = Int64(String(decoding: fields[0], as: UTF8.self)),
              !fields[1].isEmpty, fields[1].count % 2 == 0, fields[1].count <= 2 * InputIntake.eventIDLimit
        else { return nil }
        var id: [UInt8] = []
        var digits = fields[1].makeIterator()
        while let high = digits.next(), let low = digits.next() {
            guard let high = hexValue(high), let low = hexValue(low) else { return nil }
            id.append(high << 4 | low)
        }
        return (String(decoding: id, as: UTF8.self), until)
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
        default: return nil
        }
    }

    /// Replaces the file with `entries` (temporary file, `fsync`, rename) and returns it open for appending.
    private static func rewrite(_ path: String, _ entries: [(id: String, until: Int64)]) throws(StateFolder.Problem) -> Int32 {
        let temporary = path + ".tmp"
        unlink(temporary)
        let descriptor = try StateFolder.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_APPEND)
        do throws(StateFolder.Problem) {
            try append(Array(entries.map { line($0.id, until: $0.until) }.joined().utf8), to: descriptor, path: temporary)
            guard fsync(descriptor) == 0 else { throw StateFolder.Problem(path: temporary, reason: "fsync failed (\(String(cString: strerror(errno))))") }
            guard rename(temporary, path) == 0 else { throw StateFolder.Problem(path: path, reason: "rename failed (\(String(cString: strerror(errno))))") }
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
        return descriptor
    }

    private static func append(_ bytes: [UInt8], to descriptor: Int32, path: String) throws(StateFolder.Problem) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { throw StateFolder.Problem(path: path, reason: "write failed (\(String(cString: strerror(errno))))") }
            offset += written
        }
    }
}

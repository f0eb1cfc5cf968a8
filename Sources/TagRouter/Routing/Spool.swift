@preconcurrency import Glibc
import Foundation
import TagCore

/// One action's on-disk queue of deliveries waiting for their target, in order.
/// Each entry is one file `<sequence>.json` holding `{"route", "event"}`,
/// written to a temporary name, flushed with `fsync`, renamed into place and
/// the directory flushed: a crash at any point leaves either the whole entry
/// or none of it. An entry is removed only after its delivery succeeded (or
/// failed for good), so a crash in between delivers it again: at least once.
final class Spool: Sendable {
    /// A spooled delivery with the file it came from.
    struct Entry: Sendable {
        let sequence: UInt64
        let event: TagEvent
        let route: String
    }

    let directory: String

    init(directory: String) { self.directory = directory }

    /// The entries on disk, oldest first; unreadable files are moved aside and logged.
    func entries() -> [Entry] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        var entries: [Entry] = []
        for name in names.sorted() {
            let path = directory + "/" + name
            if name.hasPrefix(".") && name.hasSuffix(".tmp") {
                try? FileManager.default.removeItem(atPath: path)  // an unfinished write: never accepted
                continue
            }
            guard name.hasSuffix(".json"), let sequence = UInt64(name.dropLast(5)) else { continue }
            guard let data = FileManager.default.contents(atPath: path),
                let json = try? JSONValue.parse(String(decoding: data, as: UTF8.self)),
                let event = try? TagEvent(json: json["event"] ?? .null)
            else {
                Log.error("spool entry unreadable; moved aside", JSONObject(["file": .string(path)]))
                try? FileManager.default.moveItem(atPath: path, toPath: path + ".bad")
                continue
            }
            entries.append(Entry(sequence: sequence, event: event, route: json["route"]?.stringValue ?? ""))
        }
        return entries
    }

    /// Writes `event` as the newest entry; throws when the disk refuses.
    func append(_ event: TagEvent, route: String, after last: UInt64?) throws(SpoolError) -> Entry {
        try createDirectory()
        let sequence = (last ?? 0) + 1
        let name = String(format: "%020llu.json", sequence)
        let temporary = directory + "/." + name + ".tmp"
        let json = JSONValue.object(JSONObject(["route": .string(route), "event": event.json])).serialized() + "\n"
        try writeDurably(Array(json.utf8), to: temporary)
        guard rename(temporary, directory + "/" + name) == 0 else { throw SpoolError(path: temporary, operation: "rename") }
        try syncDirectory()
        return Entry(sequence: sequence, event: event, route: route)
    }

    /// Deletes a delivered entry.
    func remove(_ entry: Entry) {
        unlink(directory + "/" + String(format: "%020llu.json", entry.sequence))
    }

    private func createDirectory() throws(SpoolError) {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw SpoolError(path: directory, operation: "create directory")
        }
    }

    private func writeDurably(_ bytes: [UInt8], to path: String) throws(SpoolError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
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
        guard fsync(descriptor) == 0 else { throw SpoolError(path: path, operation: "fsync") }
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

    var description: String { "spool: \(operation) \(path): \(reason)" }
}

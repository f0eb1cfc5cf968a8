import CSystemd
import Glibc

/// Structured entries straight into the journal (sd_journal_sendv(3)), so that
/// `journalctl -u tagrouter READER=front-door` finds a reader's lines. Fields are
/// upper-case journal field names (`fieldName(_:)` turns `tag_uid` into `TAG_UID`);
/// values may hold any text, newlines included. The first entry loads libsystemd.
public enum SystemdJournal {
    /// syslog(3) priorities, as the journal's PRIORITY= field takes them.
    public enum Priority: Int, Sendable {
        case error = 3, warning = 4, notice = 5, info = 6, debug = 7
    }

    /// Whether stderr is a journal stream: systemd sets `JOURNAL_STREAM=<device>:<inode>` of the
    /// stream it connected, and it is still stderr (systemd.exec(5)); then native entries replace lines.
    public static func stderrIsJournal(journalStream: String? = getenv("JOURNAL_STREAM").map { String(cString: $0) }) -> Bool {
        guard let journalStream else { return false }
        let parts = journalStream.split(separator: ":")
        var info = stat()
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]), fstat(STDERR_FILENO, &info) == 0
        else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }

    /// Writes one entry: `message` with `priority`, `SYSLOG_IDENTIFIER=identifier`, and `fields` in order.
    public static func send(_ message: String, priority: Priority = .info, identifier: String = "tagrouter",
                            fields: [(name: String, value: String)] = []) throws(SystemdError) {
        let entries = [("MESSAGE", message), ("PRIORITY", String(priority.rawValue)), ("SYSLOG_IDENTIFIER", identifier)]
            + fields.map { (fieldName($0.name), $0.value) }
        // One buffer holds every FIELD=value; an iovec points at each.
        var bytes: [UInt8] = []
        var ranges: [Range<Int>] = []
        for (name, value) in entries {
            let start = bytes.count
            bytes += Array("\(name)=\(value)".utf8)
            ranges.append(start..<bytes.count)
        }
        let operation = "sd_journal_sendv to /run/systemd/journal/socket"
        let library = try LibSystemd.loaded(for: operation)
        let result = bytes.withUnsafeMutableBytes { buffer in
            var vectors = ranges.map { iovec(iov_base: buffer.baseAddress! + $0.lowerBound, iov_len: $0.count) }
            return library.journalSendv(&vectors, Int32(vectors.count))
        }
        guard result >= 0 else { throw SystemdError(operation: operation, code: -result) }
    }

    /// A valid journal field name for `key`: upper case, `_` for anything but letters and digits,
    /// no leading `_` (reserved for trusted fields) or digit, at most 64 characters.
    public static func fieldName(_ key: String) -> String {
        var name = String(key.uppercased().map { ($0.isASCII && ($0.isLetter || $0.isNumber)) ? $0 : "_" })
        while name.first == "_" || name.first?.isNumber == true { name.removeFirst() }
        return name.isEmpty ? "FIELD" : String(name.prefix(64))
    }
}

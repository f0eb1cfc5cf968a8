@preconcurrency import Glibc
import OrderedJSON
import SystemKit

/// The daemon's log straight into the journal when systemd connected stderr to it
/// (`JOURNAL_STREAM`): each entry's fields become journal fields — `READER=`,
/// `TAG_UID=`, `ROUTE=` (one per route matched), `ACTION=`, `EVENT_ID=` — so
/// `journalctl -u tagrouter READER=front-door` finds a reader's lines.
public enum JournalLog {
    /// Installs the journal as the log's sink, unless a format was asked for or stderr is not the journal.
    public static func installIfJournal(formatGiven: Bool) {
        guard !formatGiven, SystemdJournal.stderrIsJournal() else { return }
        Log.configure(sink: write)
    }

    /// Names the journal gives a meaning of its own; a field with one of them is prefixed.
    private static let reserved: Set = ["MESSAGE", "MESSAGE_ID", "PRIORITY", "SYSLOG_IDENTIFIER", "CODE_FILE", "CODE_LINE", "CODE_FUNC", "ERRNO"]

    static func fields(_ entry: Log.Entry) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        for (key, value) in entry.fields {
            if key == "routes", case .array(let routes) = value {
                fields += routes.map { ("ROUTE", $0.plainText) }
                continue
            }
            let name = SystemdJournal.fieldName(key)
            fields.append((reserved.contains(name) ? "TAGROUTER_" + name : name, value.plainText))
        }
        return fields
    }

    private static func write(_ entry: Log.Entry) {
        let priority: SystemdJournal.Priority = switch entry.level {
        case .debug: .debug
        case .info: .info
        case .warning: .warning
        case .error: .error
        }
        do {
            try SystemdJournal.send(entry.message, priority: priority, fields: fields(entry))
        } catch {
            // journald is gone: the line still reaches stderr, which systemd reads.
            fputs("\(entry.level.name.uppercased()) \(entry.message)\n", stderr)
        }
    }
}

@preconcurrency import Glibc
import FoundationEssentials
import OrderedJSON
import Synchronization

/// The daemon's diagnostic log on stderr (stdout is kept for event output such as
/// the `log` action). One line per entry: human text on a terminal, one JSON
/// object per line otherwise; set once at start-up with `Log.configure`, which
/// can also hand entries to a sink instead (the executable sets the journal's).
public enum Log {
    /// How important an entry is; entries below the configured level are dropped.
    public enum Level: Int, Sendable, Comparable, CaseIterable {
        case debug, info, warning, error

        public var name: String { ["debug", "info", "warning", "error"][rawValue] }

        public init?(name: String) {
            guard let level = Level.allCases.first(where: { $0.name == name.lowercased() }) else { return nil }
            self = level
        }

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// How entries are written.
    public enum Format: String, Sendable {
        case human, json
    }

    /// One entry, as a sink receives it.
    public struct Entry: Sendable {
        public var level: Level
        public var message: String
        /// Structured fields (`reader`, `tag_uid`, `routes`, `action`, `event_id`…).
        public var fields: JSONObject
    }

    /// Takes every entry at or above the level instead of stderr; it must not block for long.
    public typealias Sink = @Sendable (Entry) -> Void

    private struct Settings {
        var level: Level = .info
        var format: Format = isatty(STDERR_FILENO) != 0 ? .human : .json
        var sink: Sink?
    }

    private static let settings = Mutex(Settings())

    /// Sets the level, the format, and a sink for the rest of the process.
    public static func configure(level: Level? = nil, format: Format? = nil, sink: Sink? = nil) {
        settings.withLock { current in
            if let level { current.level = level }
            if let format { current.format = format }
            if let sink { current.sink = sink }
        }
    }

    /// The level entries must reach to be written.
    public static var level: Level { settings.withLock { $0.level } }

    /// True when entries are JSON lines or go to a sink (the journal): raw text on stderr would not fit in.
    public static var isStructured: Bool { settings.withLock { $0.format == .json || $0.sink != nil } }

    public static func debug(_ message: String, _ fields: JSONObject = JSONObject()) {
        write(.debug, message, fields)
    }

    public static func info(_ message: String, _ fields: JSONObject = JSONObject()) {
        write(.info, message, fields)
    }

    public static func warning(_ message: String, _ fields: JSONObject = JSONObject()) {
        write(.warning, message, fields)
    }

    public static func error(_ message: String, _ fields: JSONObject = JSONObject()) {
        write(.error, message, fields)
    }

    /// Logs at a level chosen at run time (`debug` … `error`).
    public static func write(_ level: Level, _ message: String, _ fields: JSONObject) {
        let current = settings.withLock { $0 }
        guard level >= current.level else { return }
        if let sink = current.sink { return sink(Entry(level: level, message: message, fields: fields)) }
        let line: String
        switch current.format {
        case .json:
            var object = JSONObject()
            object["time"] = .string(Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
            object["level"] = .string(level.name)
            object["msg"] = .string(message)
            for (key, value) in fields { object[key] = value }
            line = JSONValue.object(object).serialized()
        case .human:
            let details = fields.map { "\($0.key)=\($0.value.plainText)" }.joined(separator: " ")
            line = "\(level.name.uppercased()) \(message)" + (details.isEmpty ? "" : " " + details)
        }
        // Either format may reach a terminal (`journalctl`, `tail -f`): shown, never obeyed; JSON stays the same JSON.
        StandardError.write(line: TerminalText.escaped(line))
    }
}

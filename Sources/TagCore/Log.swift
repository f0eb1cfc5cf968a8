@preconcurrency import Glibc
import FoundationEssentials
import Synchronization

/// The daemon's diagnostic log on stderr (stdout is kept for event output such as
/// the `log` action). One line per entry: human text on a terminal, one JSON
/// object per line otherwise; set once at start-up with `Log.configure`.
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

    private struct Settings {
        var level: Level = .info
        var format: Format = isatty(STDERR_FILENO) != 0 ? .human : .json
    }

    private static let settings = Mutex(Settings())

    /// Sets the level and format for the rest of the process.
    public static func configure(level: Level? = nil, format: Format? = nil) {
        settings.withLock { current in
            if let level { current.level = level }
            if let format { current.format = format }
        }
    }

    /// The level entries must reach to be written.
    public static var level: Level { settings.withLock { $0.level } }

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
        StandardError.write(line: line)
    }
}

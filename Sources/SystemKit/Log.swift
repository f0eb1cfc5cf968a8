import OrderedJSON

/// The daemon's diagnostic log on stderr (stdout is kept for event output such as the `log` action): its levels,
/// formats and entries, and the calls every module makes (`Log.info("…", fields)`). Each call goes to
/// `Logger.current` — the logger bound to the calling task (or to the `DedicatedThread` it started), else the
/// process-wide one `Log.configure` sets at start-up — and builds its message and fields only when that logger's
/// level lets the entry through.
public enum Log {
    /// How important an entry is; entries below the logger's level are dropped unbuilt.
    public enum Level: Int, Sendable, Comparable, CaseIterable {
        case debug, info, warning, error

        public var name: String { ["debug", "info", "warning", "error"][rawValue] }

        public init?(name: String) {
            guard let level = Level.allCases.first(where: { $0.name == name.lowercased() }) else { return nil }
            self = level
        }

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// How entries are written on stderr: human text (a terminal) or one JSON object per line.
    public enum Format: String, Sendable, CaseIterable {
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

    /// Sets the process-wide logger's level, format, and sink, for every task not bound to a logger of its own.
    public static func configure(level: Level? = nil, format: Format? = nil, sink: Sink? = nil) {
        Logger.processWide.withLock { logger in
            if let level { logger.level = level }
            if let format { logger.format = format }
            if let sink { logger.sink = sink }
        }
    }

    /// The level entries must reach to be written, here.
    public static var level: Level { Logger.current.level }

    /// True when entries are JSON lines or go to a sink (the journal): raw text on stderr would not fit in.
    public static var isStructured: Bool { Logger.current.isStructured }

    public static func debug(_ message: @autoclosure () -> String, _ fields: @autoclosure () -> JSONObject = JSONObject()) {
        Logger.current.write(.debug, message(), fields())
    }

    public static func info(_ message: @autoclosure () -> String, _ fields: @autoclosure () -> JSONObject = JSONObject()) {
        Logger.current.write(.info, message(), fields())
    }

    public static func warning(_ message: @autoclosure () -> String, _ fields: @autoclosure () -> JSONObject = JSONObject()) {
        Logger.current.write(.warning, message(), fields())
    }

    public static func error(_ message: @autoclosure () -> String, _ fields: @autoclosure () -> JSONObject = JSONObject()) {
        Logger.current.write(.error, message(), fields())
    }

    /// Logs at a level chosen at run time (`debug` … `error`).
    public static func write(_ level: Level, _ message: @autoclosure () -> String, _ fields: @autoclosure () -> JSONObject) {
        Logger.current.write(level, message(), fields())
    }
}

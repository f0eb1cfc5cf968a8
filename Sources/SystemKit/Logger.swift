@preconcurrency import Glibc
import OrderedJSON
import Synchronization

/// A logger as a value: the level below which nothing is built, the format of its lines, and where its entries go
/// (a sink, else stderr). `Log`'s calls take `Logger.current`; a test, or a daemon run inside another process, binds
/// its own for a task with `Logger.$bound.withValue(logger) { … }`, which reaches the tasks it starts and the
/// `DedicatedThread`s they start.
public struct Logger: Sendable {
    public var level: Log.Level
    public var format: Log.Format
    /// Takes every entry at or above the level instead of stderr; it must not block for long.
    public var sink: Log.Sink?

    public init(level: Log.Level = .info, format: Log.Format = .json, sink: Log.Sink? = nil) {
        self.level = level
        self.format = format
        self.sink = sink
    }

    /// True when entries are JSON lines or go to a sink (the journal): raw text on stderr would not fit in.
    public var isStructured: Bool { format == .json || sink != nil }

    /// Writes one entry; below the level neither the message nor the fields are built.
    public func write(_ level: Log.Level, _ message: @autoclosure () -> String, _ fields: @autoclosure () -> JSONObject) {
        guard level >= self.level else { return }
        let entry = Log.Entry(level: level, message: message(), fields: fields())
        if let sink { return sink(entry) }
        // Either format may reach a terminal (`journalctl`, `tail -f`): shown, never obeyed; JSON stays the same JSON.
        StandardError.write(line: TerminalText.escaped(entry.line(format)))
    }

    /// The logger bound to this task, the tasks it starts and the `DedicatedThread`s they start; nil: the process-wide one.
    @TaskLocal public static var bound: Logger?

    /// What `Log.configure` sets: human text on a terminal, JSON lines otherwise, at info.
    static let processWide = Mutex(Logger(format: isatty(STDERR_FILENO) != 0 ? .human : .json))

    /// The logger `Log`'s calls write to here: the one bound to this task or thread, else the process-wide one.
    public static var current: Logger { bound ?? processWide.withLock { $0 } }
}

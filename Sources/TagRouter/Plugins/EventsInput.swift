@preconcurrency import Glibc
import Lifecycle
import OrderedJSON
import SystemKit
import TagCore
import TagRuntime

/// The `events` input (and `run --events-from FILE`): JSON-lines events from a
/// file (`-` for stdin). A file can wait, so it is read only as fast as the
/// router takes events (backpressure: no event is dropped). `run` returns at the
/// end of the input; when it was the daemon's only source, that begins the
/// shutdown. Lines that are not events are logged and skipped.
public struct EventsInput: SourcePlugin {
    /// An events file that cannot be read, with the path and the system's reason.
    public struct Unreadable: Error, CustomStringConvertible {
        public let description: String
    }

    public static let name = "events"
    public static let spec = OptionSpec("JSON-lines events from a file, as `tagrouter watch` prints them", scalarOption: "path", [
        Option("path", .string, required: true, "the file (relative to the config file), or `-` for standard input; read once, to its end"),
    ])

    public let path: String

    public init(options: ConfigValue, context: PluginContext) throws(ConfigErrors) {
        let given = options.optionalString("path") ?? "-"
        let path = given == "-" ? given : options.context.resolve(given)
        if let problem = Self.problem(reading: path) { throw options.error("path", problem) }
        self.path = path
    }

    /// `--events-from`: an unreadable file is an error before anything starts.
    public init(path: String) throws(Unreadable) {
        if let problem = Self.problem(reading: path) { throw Unreadable(description: problem) }
        self.path = path
    }

    /// Why `path` cannot be read as events: no such file, no permission, a folder (which reads as empty).
    private static func problem(reading path: String) -> String? {
        guard path != "-" else { return nil }
        var status = stat()
        let reason = access(path, R_OK) != 0 ? errno : stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR ? EISDIR : nil
        return reason.map { "cannot read events from '\(path)': \(String(cString: strerror($0)))" }
    }

    public func run(into buffer: EventBuffer) async throws {
        let stream: UnsafeMutablePointer<FILE>? = path == "-" ? fdopen(dup(STDIN_FILENO), "r") : fopen(path, "r")
        guard let stream else { throw Unreadable(description: "cannot read events from '\(path)': \(String(cString: strerror(errno)))") }
        await EventsFile(stream).send(into: buffer)
        if !Task.isCancelled { Log.info("end of events", JSONObject(["path": .string(path)])) }
    }
}

/// An events file read and parsed by a thread of its own (blocking reads stay
/// off the task pool), which sends the events straight into the event buffer:
/// the lines one read brought are sent together (up to `batch` at a time), so the
/// router is woken once for them, and nothing read waits for the next read.
private final class EventsFile: @unchecked Sendable {
    private let file: UnsafeMutablePointer<FILE>
    /// The most events sent at once: the router starts on a long read's first lines.
    private let batch = 64

    init(_ file: UnsafeMutablePointer<FILE>) { self.file = file }

    /// Sends the events into `buffer` in file order, waiting for room there, and
    /// returns at the end of the input, once the buffer is finished, or when the
    /// caller is cancelled. The thread ends, closing the file, at the end of the
    /// input or of the buffer, or after a cancellation at its next line.
    func send(into buffer: EventBuffer) async {
        let (ended, stop) = (Latch(), Latch())
        DedicatedThread.start(name: "tagrouter events-from") { [self] in
            defer {
                fclose(file)
                ended.open()
            }
            var lineNumber = 0
            var events: [TagEvent] = []
            events.reserveCapacity(batch)
            /// False once the buffer is finished (the router has gone): the thread ends.
            func sendEvents() -> Bool {
                defer { events.removeAll(keepingCapacity: true) }
                return events.isEmpty || buffer.sendBlocking(events)
            }
            forEachLine(beforeReading: sendEvents) { line in
                lineNumber += 1
                if stop.isOpen { return false }
                if line.allSatisfy(Self.isWhitespace) { return true }
                do {
                    events.append(try TagEvent(jsonUTF8: line))
                } catch {
                    Log.error("event line skipped", JSONObject(["line": .int(Int64(lineNumber)), "reason": .string("\(error)")]))
                }
                return events.count < batch || sendEvents()
            }
        }
        await ended.wait()  // the input or the buffer ended, or the caller is cancelled
        stop.open()
    }

    /// Hands `body` each line's bytes without its newline, parsed in place (no
    /// String per line), until `body` or `beforeReading` returns false or the input
    /// ends. `beforeReading` is called before each read, which may wait for input,
    /// and at the end: what the lines so far gave is handed on then.
    private func forEachLine(beforeReading: () -> Bool, _ body: (UnsafeBufferPointer<UInt8>) -> Bool) {
        var storage = [UInt8](repeating: 0, count: 64 * 1024)
        var (start, filled) = (0, 0)  // the bytes read and not yet handed on: storage[start..<filled]
        while true {
            let keep = storage.withUnsafeBufferPointer { bytes in
                while let found = memchr(bytes.baseAddress! + start, Int32(UInt8(ascii: "\n")), filled - start) {
                    let newline = bytes.baseAddress!.distance(to: found.assumingMemoryBound(to: UInt8.self))
                    defer { start = newline + 1 }
                    if !body(UnsafeBufferPointer(rebasing: bytes[start..<newline])) { return false }
                }
                return true
            }
            guard keep, beforeReading() else { return }
            // The start of a line not read whole moves to the front; a line longer than the storage grows it.
            storage.withUnsafeMutableBufferPointer { bytes in
                if start > 0 { bytes.baseAddress!.update(from: bytes.baseAddress! + start, count: filled - start) }
            }
            (start, filled) = (0, filled - start)
            if filled == storage.count { storage += repeatElement(0, count: storage.count) }
            let count = storage.withUnsafeMutableBytes { read(fileno(file), $0.baseAddress! + filled, $0.count - filled) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                // The end of the input (or an error, as getline took it): a last line without its newline counts.
                if filled == 0 || storage.withUnsafeBufferPointer({ body(UnsafeBufferPointer(rebasing: $0[0..<filled])) }) { _ = beforeReading() }
                return
            }
            filled += count
        }
    }

    /// ASCII white space: space, tab, line feed, vertical tab, form feed, carriage return.
    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || (0x09...0x0D).contains(byte)
    }
}

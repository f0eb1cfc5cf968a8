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
/// off the task pool), which sends each event straight into the event buffer.
private final class EventsFile: @unchecked Sendable {
    private let file: UnsafeMutablePointer<FILE>

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
            forEachLine { line in
                lineNumber += 1
                if stop.isOpen { return false }
                if line.allSatisfy(Self.isWhitespace) { return true }
                do {
                    // False once the buffer is finished (the router has gone): the thread ends.
                    return buffer.sendBlocking(try TagEvent(jsonUTF8: line))
                } catch {
                    Log.error("event line skipped", JSONObject(["line": .int(Int64(lineNumber)), "reason": .string("\(error)")]))
                }
                return true
            }
        }
        await ended.wait()  // the input or the buffer ended, or the caller is cancelled
        stop.open()
    }

    /// Hands `body` each line's bytes without its newline, parsed in place (no
    /// String per line), until `body` returns false or the input ends.
    private func forEachLine(_ body: (UnsafeBufferPointer<UInt8>) -> Bool) {
        var buffer: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(buffer) }
        while case let length = getline(&buffer, &capacity, file), length >= 0, let buffer {
            let keep = buffer.withMemoryRebound(to: UInt8.self, capacity: length) { bytes in
                let end = length > 0 && bytes[length - 1] == UInt8(ascii: "\n") ? length - 1 : length
                return body(UnsafeBufferPointer(start: bytes, count: end))
            }
            if !keep { return }
        }
    }

    /// ASCII white space: space, tab, line feed, vertical tab, form feed, carriage return.
    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || (0x09...0x0D).contains(byte)
    }
}

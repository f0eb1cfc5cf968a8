@preconcurrency import Glibc
import Dispatch
import Foundation
import TagCore
import TagRouter

/// Everything the daemon's main loop reacts to, merged into one stream so a
/// reload or a stop is just the next element: tag events, signals, and the end
/// of an event file.
enum RunInput: Sendable {
    case event(TagEvent)
    case signal(Int32)
    case eventsEnded
}

/// Creates the merged input stream and feeds it.
final class RunInputs {
    let stream: AsyncStream<RunInput>
    private let continuation: AsyncStream<RunInput>.Continuation
    private let signalSources: [any DispatchSourceSignal]

    init(signals: [Int32]) {
        (stream, continuation) = AsyncStream.makeStream(of: RunInput.self)
        let continuation = continuation
        signalSources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(.signal(number)) }
            source.resume()
            return source
        }
    }

    /// Forwards every event of `events` (the readers) until that stream ends.
    func forward(_ events: AsyncStream<TagEvent>) {
        let continuation = continuation
        Task {
            for await event in events { continuation.yield(.event(event)) }
        }
    }

    /// Reads JSON-lines events from `path` (`-` for stdin) on a thread of its own,
    /// then yields `.eventsEnded`. Lines that are not events are logged and skipped.
    func readEvents(from path: String) throws(CLIError) {
        let file: UnsafeMutablePointer<FILE>? = path == "-" ? fdopen(dup(STDIN_FILENO), "r") : fopen(path, "r")
        guard let file else { throw .usage("cannot read events from '\(path)': \(String(cString: strerror(errno)))") }
        let handle = FileBox(file)
        let continuation = continuation
        let thread = Thread {
            var lineNumber = 0
            while let line = handle.readLine() {
                lineNumber += 1
                if line.allSatisfy(\.isWhitespace) { continue }
                do {
                    continuation.yield(.event(try TagEvent(jsonText: line)))
                } catch {
                    Log.error("event line skipped", JSONObject(["line": .int(Int64(lineNumber)), "reason": .string("\(error)")]))
                }
            }
            handle.close()
            continuation.yield(.eventsEnded)
        }
        thread.name = "tagrouter events-from"
        thread.start()
    }
}

/// A C stream read by one thread.
private final class FileBox: @unchecked Sendable {
    private let file: UnsafeMutablePointer<FILE>

    init(_ file: UnsafeMutablePointer<FILE>) { self.file = file }

    /// The next line without its newline; nil at the end.
    func readLine() -> String? {
        var buffer: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(buffer) }
        let length = getline(&buffer, &capacity, file)
        guard length >= 0, let buffer else { return nil }
        var line = String(cString: buffer)
        if line.hasSuffix("\n") { line.removeLast() }
        return line
    }

    func close() { fclose(file) }
}

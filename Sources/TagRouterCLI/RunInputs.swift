@preconcurrency import Glibc
import Dispatch
import Foundation
import TagCore

/// `run --events-from FILE`: JSON-lines events from a file (`-` for stdin) as the
/// daemon's source. A file can wait, so it is read only as fast as the router
/// takes events (backpressure: no event is dropped). `run` returns at the end of
/// the input, which begins the daemon's shutdown. Lines that are not events are
/// logged and skipped.
struct EventsFileSource: Service {
    private let file: EventsFile
    private let buffer: EventBuffer

    /// Opens `path` now, so a file that cannot be read is a usage error before anything starts.
    init(path: String, buffer: EventBuffer) throws(CLIError) {
        let stream: UnsafeMutablePointer<FILE>? = path == "-" ? fdopen(dup(STDIN_FILENO), "r") : fopen(path, "r")
        guard let stream else { throw .usage("cannot read events from '\(path)': \(String(cString: strerror(errno)))") }
        file = EventsFile(stream)
        self.buffer = buffer
    }

    func run() async {
        await file.forEach { await buffer.send($0) }
        if !Task.isCancelled { Log.info("end of events; stopping") }
    }
}

/// An events file read and parsed by a thread of its own (blocking reads stay
/// off the task pool), at most `readAhead` events ahead of their consumer.
private final class EventsFile: @unchecked Sendable {
    private let file: UnsafeMutablePointer<FILE>
    private let readAhead = 256

    init(_ file: UnsafeMutablePointer<FILE>) { self.file = file }

    /// Hands `body` the events in file order until it returns false or the input
    /// ends. The thread ends, closing the file, at the end of the input or after
    /// `body` stopped (once its current read returns).
    func forEach(_ body: (TagEvent) async -> Bool) async {
        let (events, continuation) = AsyncStream.makeStream(of: TagEvent.self)
        let room = DispatchSemaphore(value: readAhead)
        let thread = Thread { [self] in
            defer { fclose(file) }
            var lineNumber = 0
            while let line = readLine() {
                lineNumber += 1
                if line.allSatisfy(\.isWhitespace) { continue }
                do {
                    let event = try TagEvent(jsonText: line)
                    room.wait()
                    if case .terminated = continuation.yield(event) { return }
                } catch {
                    Log.error("event line skipped", JSONObject(["line": .int(Int64(lineNumber)), "reason": .string("\(error)")]))
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in room.signal() }
        thread.name = "tagrouter events-from"
        thread.start()
        defer { continuation.finish() }
        for await event in events {
            room.signal()
            guard await body(event) else { return }
        }
    }

    /// The next line without its newline; nil at the end.
    private func readLine() -> String? {
        var buffer: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(buffer) }
        let length = getline(&buffer, &capacity, file)
        guard length >= 0, let buffer else { return nil }
        var line = String(cString: buffer)
        if line.hasSuffix("\n") { line.removeLast() }
        return line
    }
}

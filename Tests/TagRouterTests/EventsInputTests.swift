import Foundation
import TagCore
import TagRouter
import TagRuntime
import Testing

/// The `events` input's thread sends each line's event straight into the event
/// buffer: in file order, waiting for room (none dropped), and it stops with its
/// caller or the buffer.
@Suite struct EventsInputTests {
    static func file(_ lines: [String]) throws -> String {
        let path = NSTemporaryDirectory() + "tagrouter-events-input-" + UUID().uuidString + ".jsonl"
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func line(_ index: Int) -> String {
        #"{"event":"tag.arrived","id":"e\#(index)","reader":"r","tag":{"uid":"04a2"},"ndef":{"records":[]}}"#
    }

    /// Whether this process still has `path` open.
    static func isOpen(_ path: String) -> Bool {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.contains { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)) == path }
    }

    /// Polls `condition` until it holds or a generous deadline passes (a state, not a speed).
    static func waitFor(_ condition: () -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(30)
        while !condition() {
            if ContinuousClock.now > deadline { return false }
            try await Task.sleep(for: .milliseconds(10))
        }
        return true
    }

    @Test func everyEventArrivesInOrderThroughABufferOfOne() async throws {
        let path = try Self.file((0..<50).map(Self.line) + ["", "not json", Self.line(50)])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let buffer = EventBuffer(capacity: 1)
        let input = try EventsInput(path: path)
        let reading = Task { try await input.run(into: buffer) }
        var ids: [String] = []
        while ids.count < 51, let entry = await buffer.next() {
            #expect(entry.canWait)
            ids.append(entry.event.id)
        }
        try await reading.value
        #expect(ids == (0...50).map { "e\($0)" })
        #expect(buffer.count == 0)
        #expect(try await Self.waitFor { !Self.isOpen(path) })
    }

    /// Lines are read in blocks: a line longer than a block (64 KiB), lines across
    /// blocks, more lines than are sent at once (64), and a last line without its
    /// newline all arrive whole and in order.
    @Test func longLinesLinesAcrossReadsAndALastLineWithoutNewlineArrive() async throws {
        let long = String(repeating: "é-long ", count: 20_000)
        let longLine = #"{"event":"tag.arrived","id":"long","reader":"r","text":"\#(long)"}"#
        var lines = (0..<300).map(Self.line)
        lines.insert(longLine, at: 150)
        let path = NSTemporaryDirectory() + "tagrouter-events-input-" + UUID().uuidString + ".jsonl"
        try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let buffer = EventBuffer(capacity: 16)
        let reading = Task { try await EventsInput(path: path).run(into: buffer) }
        var events: [TagEvent] = []
        while events.count < 301, let entry = await buffer.next() { events.append(entry.event) }
        try await reading.value
        #expect(events.map(\.id) == (0..<150).map { "e\($0)" } + ["long"] + (150..<300).map { "e\($0)" })
        #expect(events[150].text == long)
    }

    /// Cancelled while its thread waits for room (or is about to), the input returns at
    /// once; its thread ends, closing the file, by the time the buffer ends, and nothing more goes in.
    @Test func aCancelledInputReturnsAndItsThreadEndsWithTheBuffer() async throws {
        let path = try Self.file((0..<10).map(Self.line))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let buffer = EventBuffer(capacity: 1)
        let input = try EventsInput(path: path)
        let reading = Task { try await input.run(into: buffer) }
        #expect(try await Self.waitFor { buffer.count == 1 })
        reading.cancel()
        try await reading.value
        buffer.finish()
        #expect(try await Self.waitFor { !Self.isOpen(path) })
        #expect(await buffer.next()?.event.id == "e0")
        #expect(await buffer.next() == nil)
    }
}

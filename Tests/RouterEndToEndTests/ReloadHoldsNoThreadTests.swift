import DaemonControl
import DaemonTesting
import Foundation
import Synchronization
import Testing

/// A reload that waits for its config file holds no thread of Swift's pool, so routing goes on meanwhile.
@Suite(.timeLimit(.minutes(2)))
struct ReloadHoldsNoThreadTests {
    /// More reloads than the pool has threads wait for a config file that is still being written (a FIFO
    /// whose writer holds it open and has written nothing yet; the others wait behind that reload). The daemon
    /// routes every event sent meanwhile, then each reload takes the file once it is written. A reload that blocked a pool thread (sleeping
    /// for the file to settle, reading it, or waiting behind another reload on a lock) would starve the
    /// router: the writer, on a thread of its own, writes anyway after its deadline, and notes that the
    /// events were not routed first.
    @Test func routingGoesOnWhileReloadsWaitForAFileStillBeingWritten() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let path = scratch.path + "/tagrouter.yaml"
        try #require(mkfifo(path, 0o600) == 0)
        func config(_ name: String) -> String { "routes: [{name: \(name), actions: [{log: \"\(name) {{tag.uid}}\"}]}]\nstate_dir: \(scratch.path)/state\n" }
        let reloads = ProcessInfo.processInfo.activeProcessorCount + 1
        let events = 5
        let writer = FIFOWriter(path: path, first: config("a"), then: config("b"))
        let daemon = try TestDaemon(configFile: path)
        writer.routed = { daemon.output.count >= events }
        let outcomes = Task {
            await withTaskGroup(of: ReloadOutcome.self) { group in
                for _ in 0..<reloads { group.addTask { await daemon.reload() } }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }
        try await writer.readerWaiting()
        for number in 0..<events { try await daemon.send(arrival(uid: "0\(number)")) }
        #expect(try await daemon.output(count: events) == (0..<events).map { "a 0\($0)" })
        for outcome in await outcomes.value {
            guard case .reloaded = outcome else { Issue.record("a reload failed: \(outcome)"); continue }
        }
        #expect(writer.routedBeforeWriting == true, "the events were routed while the reloads waited for the file")
        try await daemon.send(arrival(uid: "09"))
        #expect(try await daemon.output(count: events + 1).last == "b 09")
        daemon.closeInput()
        try await daemon.finished()
    }
}

/// Writes a FIFO from a thread of its own (the test's tasks may be starved): `first` for the daemon's start, then,
/// once a reload is reading and the events were routed (or a deadline far past any honest wait), `then` for that
/// reload, having first put a regular file with `then` in the FIFO's place for the reloads after it.
private final class FIFOWriter: @unchecked Sendable {
    /// Whether the events were routed; set once the daemon has read its first config (and closed the file).
    var routed: (@Sendable () -> Bool)? {
        get { state.withLock { $0.routed } }
        set { state.withLock { $0.routed = newValue } }
    }
    /// Whether the events were routed before the reloads got their file; nil until the writer looked.
    var routedBeforeWriting: Bool? { state.withLock { $0.routedBeforeWriting } }

    private struct State {
        var routed: (@Sendable () -> Bool)?
        var readerWaiting = false
        var routedBeforeWriting: Bool?
    }

    private let state = Mutex(State())

    init(path: String, first: String, then: String) {
        Thread { [self] in
            Self.write(first, to: open(path, O_WRONLY))
            let deadline = Date().addingTimeInterval(30)
            // Not before the daemon's start has read the first config to its end.
            while routed == nil, Date() < deadline { usleep(2_000) }
            let routed = routed ?? { false }
            // A reload reading the file: opening the write end without waiting succeeds only then.
            var fd: Int32 = -1
            while fd < 0, Date() < deadline {
                fd = open(path, O_WRONLY | O_NONBLOCK)
                if fd < 0 { usleep(2_000) }
            }
            state.withLock { $0.readerWaiting = true }
            while !routed(), Date() < deadline { usleep(2_000) }
            let routedFirst = routed()
            state.withLock { $0.routedBeforeWriting = routedFirst }
            try? then.write(toFile: path + ".saved", atomically: false, encoding: .utf8)
            rename(path + ".saved", path)
            _ = fcntl(fd, F_SETFL, 0)
            Self.write(then, to: fd)
        }.start()
    }

    /// Waits until a reload reads the FIFO (or the writer's deadline passed).
    func readerWaiting() async throws {
        while !state.withLock({ $0.readerWaiting }) { try await Task.sleep(for: .milliseconds(5)) }
    }

    private static func write(_ text: String, to fd: Int32) {
        guard fd >= 0 else { return }
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }
}

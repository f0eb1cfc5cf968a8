import Foundation
import OrderedJSON
import SystemKit
import TagRouter
import TagRouterDaemon
import Testing
import TestSupport

/// A configured reader whose device is not there, as `status` answers: `waiting`, with why as
/// `last_error` and among the `problems` — the same from every reader kind. (Before, libnfc and
/// PC/SC only logged it and `status` said `starting` for ever; a keyboard reader said `error`.)
/// The daemon runs in this process with its real readers.
@Suite(.timeLimit(.minutes(2))) struct ReaderWaitingStatusTests {
    /// The daemon on one reader of `device`, until its `status` lists the reader as no longer
    /// `starting` and with a `last_error` containing `reason`: that answer, then the daemon stopped.
    static func status(readerOn device: String, reason: String = "") async throws -> JSONValue {
        let folder = NSTemporaryDirectory() + "waiting-status-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var options = DaemonOptions(config: ConfigFile(text: """
            readers: [{name: box, device: "\(device)"}]
            routes: [{actions: [log]}]
            """, name: "test.yaml"))
        options.stateDirectory = folder + "/state"
        options.notifiesSystemd = false
        options.output = LineOutput(name: "the test's output") { _ in nil }
        let logger = Logger(level: .warning, sink: { _ in })
        let daemon = try Logger.$bound.withValue(logger) { try Daemon(configuration: options) }
        let run = Task { try await Logger.$bound.withValue(logger) { try await daemon.run() } }
        defer { daemon.shutdown() }
        let deadline = ContinuousClock.now + .seconds(30)
        func reached() -> Bool {
            guard let reader = daemon.observer.status.readers.first, reader.state != .starting else { return false }
            return reason.isEmpty || reader.lastError?.message.contains(reason) == true
        }
        while !reached(), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let status = daemon.observer.status.json
        daemon.shutdown()
        try await run.value
        return status
    }

    @Test func aLibNFCReaderOnAMissingPtyIsWaitingForIt() async throws {
        let path = NSTemporaryDirectory() + "no-such-pty-\(UUID().uuidString)"
        let status = try await Self.status(readerOn: "pn532_uart:" + path)
        #expect(status.value(atPath: "readers.0.state") == "waiting", "\(status)")
        #expect(status.value(atPath: "readers.0.last_error.message") == .string("reader 'pn532_uart:\(path)' not found"), "\(status)")
        #expect(status.value(atPath: "problems.0") == .string("reader box is waiting: reader 'pn532_uart:\(path)' not found"), "\(status)")
    }

    @Test func aPCSCReaderPcscdDoesNotHaveIsWaitingForIt() async throws {
        _ = try PCSCDaemon.shared.get()
        // Under load pcscd may take a moment to answer once its socket is there: then the reader waits for pcscd first.
        let status = try await Self.status(readerOn: "pcsc:no-such-reader", reason: "not found")
        #expect(status.value(atPath: "readers.0.state") == "waiting", "\(status)")
        let message = try #require(status.value(atPath: "readers.0.last_error.message")?.stringValue, "\(status)")
        #expect(message.hasPrefix("reader 'pcsc:no-such-reader' not found (pcscd has: "), "\(message)")
        #expect(message.contains("tagrouter-test"), "\(message)")
        #expect(status.value(atPath: "problems.0")?.stringValue == "reader box is waiting: " + message, "\(status)")
    }

    @Test func aKeyboardReaderOnAMissingInputNodeIsWaitingForIt() async throws {
        let path = NSTemporaryDirectory() + "no-such-input-\(UUID().uuidString)"
        let status = try await Self.status(readerOn: "keyboard:" + path)
        #expect(status.value(atPath: "readers.0.state") == "waiting", "\(status)")
        #expect(status.value(atPath: "readers.0.last_error.message") == .string("\(path): no such input device (unplugged, or named otherwise: `ls /dev/input/by-id/`)"), "\(status)")
        #expect(status.value(atPath: "problems.0")?.stringValue?.hasPrefix("reader box is waiting: \(path): no such input device") == true, "\(status)")
    }
}

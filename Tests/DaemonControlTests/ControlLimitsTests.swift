import Foundation
import Glibc
import OrderedJSON
import TagCore
import Testing

@testable import TagRouter

@testable import DaemonControl

/// Idle clients cannot hold the daemon's threads: past the cap a client is told
/// the socket is busy, and silent ones are hung up on after the idle time.
@Suite(.timeLimit(.minutes(2)))
struct ControlLimitsTests {
    /// A client that connects, reads the hello and then says nothing.
    final class SilentClient {
        let fd: Int32

        init(path: String) throws { fd = try UnixSocket.connect(to: path).fd }

        deinit { close(fd) }

        /// What the daemon sends before it hangs up (or within `timeout` when it does not).
        func readUntilClosed(timeout: Duration = .seconds(60)) -> (text: String, closed: Bool) {
            var bytes: [UInt8] = []
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 100) > 0 else { continue }
                var buffer = [UInt8](repeating: 0, count: 4096)
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                guard count > 0 else { return (String(decoding: bytes, as: UTF8.self), true) }
                bytes += buffer.prefix(count)
            }
            return (String(decoding: bytes, as: UTF8.self), false)
        }

        /// The first line the daemon sends.
        func firstLine() -> String {
            var bytes: [UInt8] = []
            while !bytes.contains(UInt8(ascii: "\n")) {
                var byte: UInt8 = 0
                guard read(fd, &byte, 1) == 1 else { break }
                bytes.append(byte)
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// A fresh folder for a control socket.
    static func folder() throws -> String {
        let folder = NSTemporaryDirectory() + "tagrouter-limits-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        return folder
    }

    /// A watcher that stops reading loses the oldest records and is told how many, in one JSON line.
    @Test func aWatcherThatFallsBehindIsToldHowManyRecordsItLost() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/control.sock"
        let observer = DaemonObserver()
        let server = try ControlServer(
            path: path, observer: observer, limits: ControlLimits(connections: 4, idle: .seconds(120)),
            reload: { .reloaded(readers: 0, routes: 0) })
        let running = Task { await server.run() }
        defer { running.cancel() }
        let client = try SilentClient(path: path)
        _ = client.firstLine()
        var request = Array(#"{"command":"events"}"#.utf8) + [UInt8(ascii: "\n")]
        #expect(send(client.fd, &request, request.count, Int32(MSG_NOSIGNAL)) == request.count)
        #expect(client.firstLine().contains(#""watching""#))
        // Unread, the socket fills and the session's write waits: the mailbox (its capacity
        // plus the batch in hand plus the socket's buffer) cannot hold eight times its capacity.
        let event = TagEvent(kind: .tagRemoved, reader: "door", tag: TagInfo(uid: TagUID("04a224b2")!, type: "ntag215"))
        for _ in 0..<(ControlSession.mailboxCapacity * 8) { observer.routed(event, routes: ["r"], verdicts: { [] }) }
        var text: [UInt8] = []
        let marker = Array(#"{"type":"dropped","#.utf8)
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            var poller = pollfd(fd: client.fd, events: Int16(POLLIN), revents: 0)
            try #require(poll(&poller, 1, 60_000) > 0, "no dropped line within a minute")
            let count = buffer.withUnsafeMutableBytes { read(client.fd, $0.baseAddress, $0.count) }
            try #require(count > 0, "the daemon hung up")
            text += buffer.prefix(count)
            // Keep only the unfinished last line and anything from the marker on.
            if let start = text.firstRange(of: marker)?.lowerBound, text[start...].contains(UInt8(ascii: "\n")) {
                let line = String(decoding: text[start...].prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
                let dropped = try JSONValue.parse(line)
                guard case .object(let object) = dropped, case .int(let lost)? = object["count"] else {
                    Issue.record("not a dropped line: \(line)")
                    return
                }
                #expect(object.keys == ["type", "count"])
                #expect(lost > 0)
                return
            }
            if let newline = text.lastIndex(of: UInt8(ascii: "\n")), text.firstRange(of: marker) == nil { text.removeSubrange(...newline) }
        }
    }

    @Test func pastTheCapANewClientIsRefusedClearlyAndIdleOnesAreClosed() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/control.sock"
        let cap = 4
        let server = try ControlServer(
            path: path, observer: DaemonObserver(), limits: ControlLimits(connections: cap, idle: .seconds(2)),
            reload: { .reloaded(readers: 0, routes: 0) })
        let running = Task { await server.run() }
        defer { running.cancel() }

        let idle = try (0..<cap).map { _ in try SilentClient(path: path) }
        for client in idle { #expect(client.firstLine().contains(#""server":"tagrouter""#)) }
        // Full: more clients are told so at once and hung up on, not left waiting.
        for _ in 0..<3 {
            let (text, closed) = try SilentClient(path: path).readUntilClosed()
            #expect(closed)
            #expect(text.contains("busy: 4 control connections are open"), "\(text)")
        }
        // The idle ones are closed after the idle time; then a real client is served.
        for client in idle { #expect(client.readUntilClosed().closed) }
        var client = try ControlClient(path: path, name: "test")
        defer { client.close() }
        let reply = try client.request(JSONObject(["command": "status"]))
        #expect(reply["ok"] == true)
        #expect(reply.value(atPath: "status.healthy") != nil)
    }

    /// A client sending a line a byte at a time, never finishing it, is closed after the idle time too.
    @Test func aClientTricklingBytesIsClosedAfterTheIdleTime() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/control.sock"
        let server = try ControlServer(
            path: path, observer: DaemonObserver(), limits: ControlLimits(connections: 4, idle: .seconds(1)),
            reload: { .reloaded(readers: 0, routes: 0) })
        let running = Task { await server.run() }
        defer { running.cancel() }
        let client = try SilentClient(path: path)
        _ = client.firstLine()
        var closed = false
        for _ in 0..<600 where !closed {
            var byte = UInt8(ascii: " ")
            closed = send(client.fd, &byte, 1, Int32(MSG_NOSIGNAL)) != 1
            var poller = pollfd(fd: client.fd, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, 100) > 0 { closed = true }
        }
        #expect(closed, "the daemon kept a connection that never finished a line for a minute")
    }
}

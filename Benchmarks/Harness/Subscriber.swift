import ChildProcess
import Foundation
import Glibc
import Synchronization

/// An independent subscriber — `mosquitto_sub`, not our own client — that
/// records every message with its QoS and retain flag, for assertions.
public final class Subscriber: Sendable {
    /// One message as the subscriber saw it.
    public struct Received: Equatable, CustomStringConvertible {
        public var topic: String
        public var payload: [UInt8]
        public var qos: Int
        public var retained: Bool
        /// When the subscriber's line reached this process (for latency measurements).
        public var arrival: ContinuousClock.Instant

        /// The payload as UTF-8 text.
        public var text: String { String(decoding: payload, as: UTF8.self) }
        public var description: String { "\(topic) q\(qos)\(retained ? " retained" : ""): \(text)" }
    }

    private struct State {
        /// Everything received so far, in arrival order.
    public var messages: [Received] = []
        var subscriptions = 0
    }

    private let process: ChildProcess
    /// Shared with the reading thread, which outlives no one: it ends when the child does.
    private final class Recorder: Sendable {
        let state = Mutex(State())
    }

    private let recorder = Recorder()

    /// Subscribes to `filter` at QoS `qos`; with `clientID`, the session is
    /// persistent (`-c`), so messages published while it is away are queued for it.
    public init(port: Int, filter: String, qos: Int = 2, clientID: String? = nil, username: String? = nil, password: String? = nil) throws {
        // stdbuf: mosquitto_sub flushes messages but not its debug lines ("Subscribed …").
        var arguments = ["-oL", "/usr/bin/mosquitto_sub", "-h", "127.0.0.1", "-p", String(port), "-t", filter, "-q", String(qos), "-d", "-F", "%q %r %x %t"]
        if let clientID { arguments += ["-c", "-i", clientID] }
        if let username { arguments += ["-u", username] }
        if let password { arguments += ["-P", password] }
        process = try ChildProcess(
            ChildCommand(["/usr/bin/stdbuf"] + arguments, environment: TestIdentity.childEnvironment()),
            options: ChildOptions(stdout: .lines, stderr: .null))
        Task { [process, recorder] in
            for await line in process.stdoutLines {
                recorder.state.withLock { Self.parse(line, into: &$0) }
            }
        }
    }

    /// Killed, and gone, before `deinit` returns: a `SIGTERM` makes `mosquitto_sub` disconnect first, which
    /// it may still be doing when the test process exits (and then it outlives its test).
    deinit { process.end() }

    /// The process id of `mosquitto_sub`.
    public var pid: pid_t { process.pid }

    private static func parse(_ line: String, into state: inout State) {
        if line.hasPrefix("Subscribed") {
            state.subscriptions += 1
            return
        }
        let fields = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
        guard fields.count == 4, let qos = Int(fields[0]), let retained = Int(fields[1]) else { return }
        let hex = Array(fields[2].utf8)
        var payload: [UInt8] = []
        var index = 0
        while index + 1 < hex.count {
            payload.append(UInt8(String(decoding: hex[index...index + 1], as: UTF8.self), radix: 16) ?? 0)
            index += 2
        }
        state.messages.append(Received(topic: String(fields[3]), payload: payload, qos: qos, retained: retained == 1, arrival: .now))
    }

    /// Everything received so far, in arrival order.
    public var messages: [Received] { recorder.state.withLock { $0.messages } }

    /// Waits until the broker confirmed `count` subscriptions (one per (re)connect).
    public func waitUntilSubscribed(times count: Int = 1, timeout: Duration = .seconds(20)) async throws {
        try await poll(timeout, "subscription confirmed \(count) time(s)") { recorder.state.withLock { $0.subscriptions >= count } }
    }

    /// Waits until a message satisfying `predicate` arrived and returns it.
    @discardableResult
    public func waitFor(timeout: Duration = .seconds(20), _ what: String, _ predicate: @escaping (Received) -> Bool) async throws -> Received {
        try await waitUntil(timeout: timeout, what) { $0.contains(where: predicate) }.first(where: predicate)!
    }

    /// Waits until `count` messages satisfying `predicate` arrived and returns all that did.
    public func waitFor(count: Int, timeout: Duration = .seconds(30), _ predicate: @escaping (Received) -> Bool = { _ in true }) async throws -> [Received] {
        try await waitUntil(timeout: timeout, "\(count) messages") { $0.filter(predicate).count >= count }.filter(predicate)
    }

    /// Waits until everything received so far satisfies `condition`, and returns it.
    public func waitUntil(timeout: Duration = .seconds(30), _ what: String, _ condition: ([Received]) -> Bool) async throws -> [Received] {
        var seen: [Received] = []
        try await poll(timeout, what) {
            seen = messages
            return condition(seen)
        }
        return seen
    }

    private func poll(_ timeout: Duration, _ what: String, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            guard ContinuousClock.now < deadline else {
                throw TestFailure(description: "timed out after \(timeout) waiting for \(what); got: \(messages.suffix(5))")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}

extension Subscriber {
    /// A broker that keeps sessions across a restart, with a persistent QoS 1
    /// subscriber on `filter` already subscribed: what survives a broker restart
    /// reaches it, so a test can stop and start the broker mid-stream.
    public static func onRestartableBroker(filter: String) async throws -> (MosquittoBroker, Subscriber) {
        var options = MosquittoBroker.Options()
        options.persistence = true
        let broker = try await MosquittoBroker(options)
        let subscriber = try Subscriber(port: broker.port, filter: filter, qos: 1, clientID: "watcher-\(broker.port)")
        try await subscriber.waitUntilSubscribed()
        return (broker, subscriber)
    }
}

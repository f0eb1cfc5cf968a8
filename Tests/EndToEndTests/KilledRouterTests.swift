import Foundation
import Glibc
import Harness
import OrderedJSON
import TagCore
import TestSupport
import Testing

/// A central router (`tagrouter run` with an `mqtt` input) killed with SIGKILL
/// in the middle of a stream loses nothing the broker counted as delivered to
/// it: each message is acknowledged only once its event is written ahead to the
/// spool, and the rest waits in the input's persistent session. Restarted on
/// the same `state_dir`, it delivers every event at least once. Stopped with
/// SIGTERM instead, it stops gracefully: the input reads nothing more, hands on
/// every message it had been handed and acknowledges them once the router has
/// accepted them, then disconnects — none is lost.
@Suite(.timeLimit(.minutes(3)))
struct KilledRouterTests {
    static let count = 2000

    static func config(_ setup: Setup, broker: Int, receiver: Int) -> String {
        """
        state_dir: \(setup.directory)/state
        shutdown_timeout: 1s
        readers: []
        mqtt: {host: 127.0.0.1, port: \(broker), client_id: central}
        inputs:
          - mqtt: {topic: "fleet/+/+/tag.arrived", node: "{{levels.1}}", trust: broker}
        routes:
          - name: door
            actions: [{webhook: {url: "http://127.0.0.1:\(receiver)/tap", spool: true}}]
        """
    }

    @Test(arguments: [SIGKILL, SIGTERM])
    func everyEventTheBrokerDeliveredReachesTheReceiverAfterAStopAndARestart(_ stop: Int32) async throws {
        let broker = try await MosquittoBroker()
        let receiver = try await HTTPTestServer([HTTPTestServer.Answer()])  // one request at a time: slower than the taps come
        let setup = try Setup()
        defer { setup.remove() }
        let config = Self.config(setup, broker: broker.port, receiver: receiver.port)
        let first = try setup.daemon(config: config)
        try await first.waitForStderr(containing: "mqtt subscribed")

        let ids = (0..<Self.count).map { "tap-\($0)" }
        let lines = ids.enumerated().map { index, id in
            TagEvent(kind: .tagArrived, id: id, reader: "door", tag: TagInfo(uid: TagUID(bytes: [4, UInt8(index % 256), UInt8(index / 256)]), type: "ntag215"))
                .json.serialized()
        }
        let file = setup.directory + "/taps.jsonl"
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        // A node's burst, still arriving when the router is killed.
        let publisher = try RunningTool("/bin/sh", ["-c", "mosquitto_pub -p \(broker.port) -q 1 -t fleet/pi-1/door/tag.arrived -l < \(file)"])

        let beforeKill = await receiver.waitForRequests(1).count
        #expect(beforeKill < Self.count, "the receiver is slow enough that events wait in the router when it is stopped")
        first.signal(stop)
        let ended = try await first.termination(timeout: .seconds(60))
        if stop == SIGTERM {
            #expect(ended.status == .exited(0))
            let stopped = try #require(first.stderr.first { $0.text.contains("mqtt input stopped") }, "the input said how it stopped")
            #expect(stopped.text.contains(#""lost":0"#), "nothing it was handed is lost at a graceful stop: \(stopped.text)")
        }
        _ = try await publisher.termination()

        let second = try setup.daemon(config: config)
        func received() async -> [String] { await receiver.requests.compactMap { $0.headers["idempotency-key"] } }
        _ = await eventually(within: 60) { Set(await received()).count >= Self.count }
        let keys = await received()
        let missing = Set(ids).subtracting(keys)
        #expect(missing.isEmpty, "\(missing.count) of \(Self.count) events lost: \(missing.sorted().prefix(10))")
        #expect(Set(keys).isSubset(of: Set(ids)))
        // Copies are allowed (at least once): events written ahead whose PUBACK the kill cut off come again.
        let duplicates = keys.count - Set(keys).count
        print("router stopped by signal \(stop): \(beforeKill) delivered before the stop, \(keys.count) requests in all, \(duplicates) copies")
        second.signal(SIGTERM)
        _ = try await second.termination()
    }
}

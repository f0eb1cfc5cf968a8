import DaemonTesting
import Foundation
import Harness
import OrderedJSON
import Testing
import TestSupport

/// The broker dies with SIGKILL — no goodbye, no store written — while the daemon has
/// QoS 1 messages in flight: written to the broker's socket, never acknowledged.
/// What the user sees: after the broker is back, a subscriber with a persistent
/// session (the broker keeps sessions across restarts) receives every event, in order;
/// one that the dead broker had passed on but not acknowledged may come twice — QoS 1
/// is at least once. The daemon (in process) logs no failure and its spool ends empty.
@Suite(.timeLimit(.minutes(2)))
struct BrokerKillTests {
    @Test func qos1MessagesInFlightWhenTheBrokerIsKilledAreDeliveredAfterItRestarts() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let (broker, subscriber) = try await Subscriber.onRestartableBroker(filter: "kill/#")
        // The store is written only on a graceful stop: restart once, so the subscriber's
        // session is in it and outlives the kill (messages published before the subscriber
        // is back are queued for it, as a user's persistent broker would).
        await broker.stop()
        try await broker.start()
        try await subscriber.waitUntilSubscribed(times: 2)

        let file = try scratch.write("tagrouter.yaml", """
            state_dir: \(scratch.path)/state
            mqtt: { host: 127.0.0.1, port: \(broker.port), client_id: broker-kill, reconnect_delay: 50ms, reconnect_delay_max: 200ms }
            routes:
              - name: all
                actions:
                  - mqtt: { topic: "kill/{{tag.uid}}", qos: 1, payload: "{{id}}" }
            """)
        let daemon = try TestDaemon(configFile: file)
        let before = (1...20).map { arrival(uid: String(format: "06%02x", $0)) }
        let inFlight = (1...20).map { arrival(uid: String(format: "07%02x", $0)) }
        let ids = (before + inFlight).map { $0["id"]?.stringValue ?? "?" }

        for event in before { try await daemon.send(event) }
        _ = try await subscriber.waitFor(count: before.count)

        // A stopped broker reads nothing: what the daemon publishes now stays unacknowledged
        // in the broker's socket — in flight — until the kill throws it away.
        let pid = try #require(Self.brokerPID(broker), "the broker's process")
        kill(pid, SIGSTOP)
        for event in inFlight { try await daemon.send(event) }
        let unread = await eventually { Self.unreadBytes(toPort: broker.port) > 0 }
        #expect(unread, "the daemon's PUBLISH packets reached the stopped broker's socket\n\(daemon.logLines())")
        kill(pid, SIGKILL)
        #expect(await eventually { kill(pid, 0) != 0 }, "the broker is gone")
        try await broker.start()

        let received = try await subscriber.waitUntil("every event") { Set($0.map(\.text)).isSuperset(of: ids) }
        daemon.closeInput()
        try await daemon.finished()
        var firstSeen: [String] = []
        var seen: Set<String> = []
        for id in received.map(\.text) where seen.insert(id).inserted { firstSeen.append(id) }
        #expect(firstSeen == ids, "every event, in order (\(received.count - firstSeen.count) twice)")
        let stderr = daemon.logLines().map { $0.serialized() }
        #expect(!stderr.contains { $0.contains("delivery failed") || $0.contains("event dropped") }, "\(stderr.joined(separator: "\n"))")
        let stopped = try #require(daemon.logLines().last { $0["msg"] == "stopped" })
        let counters = stopped["actions"]?["all.0.mqtt"]
        #expect(counters?["delivered"] == .int(Int64(ids.count)) && counters?["failed"] == 0, "\(String(describing: counters))")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path + "/state/spool/all.0.mqtt").isEmpty, "nothing left in the spool")
    }

    /// The mosquitto process serving `broker`: the one whose command line names its directory.
    private static func brokerPID(_ broker: MosquittoBroker) -> pid_t? {
        let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in processes {
            guard let pid = pid_t(entry), let data = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else { continue }
            let arguments = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            if arguments.first == "/usr/sbin/mosquitto", arguments.contains(where: { $0.hasPrefix(broker.directory.path) }) { return pid }
        }
        return nil
    }

    /// Bytes that arrived on 127.0.0.1:`port`'s connections and were not read yet (`rx_queue` in /proc/net/tcp).
    private static func unreadBytes(toPort port: Int) -> Int {
        // Read to the end: a proc file says it is empty, and a reader that trusts its size gets one page.
        let table = String(decoding: (try? FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/net/tcp")).readToEnd()) ?? Data(), as: UTF8.self)
        let local = String(format: "0100007F:%04X", port)
        return table.split(separator: "\n").dropFirst().reduce(0) { sum, line in
            let fields = line.split(separator: " ")
            // sl local_address rem_address st tx_queue:rx_queue …; 01 is ESTABLISHED.
            guard fields.count > 4, fields[1] == local, fields[3] == "01" else { return sum }
            let queues = fields[4].split(separator: ":")
            return sum + (queues.count == 2 ? Int(queues[1], radix: 16) ?? 0 : 0)
        }
    }
}

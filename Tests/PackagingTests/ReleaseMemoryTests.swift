import Foundation
import Harness
import TestSupport
import Testing

/// The memory budget of issue 32, held by the release build: `tagrouter run` with a reader and an `mqtt` action
/// stays within 14 MB (13,672 KiB) resident; it holds ~12.7 MiB. Most of that is the binary's code mapped in 64 KB at a
/// time; the release link puts the code the daemon runs together (scripts/release/tagrouter.order) and takes libstdc++
/// in (docs/development/memory.md). A stale order file, a linker change, libstdc++.so loaded again or a module that drags
/// in Foundation shows here as megabytes.
@Suite struct ReleaseMemoryTests {
    static let budgetKiB = 13_672
    static let taps = 20

    @Test func daemonWithAReaderAndAnMQTTActionStaysWithinTheBudget() async throws {
        let directory = try TemporaryFolder.make("tagrouter-memory")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let binary = BuiltPackage.releaseBinary
        let link = directory + "/pn532", control = directory + "/pn532.sock"
        let broker = try await MosquittoBroker()
        let subscriber = try Subscriber(port: broker.port, filter: "memory/#", qos: 1)
        try await subscriber.waitUntilSubscribed()
        let simulator = try RunningTool(binary, ["simulate", "--link", link, "--control", control], directory: directory)
        try await simulator.waitForStdout(containing: "control: \(control)")
        try """
            state_dir: \(directory)/state
            readers:
              - { name: door, device: "pn532_uart:\(link)", cooldown: 0s, exit_delay: 0s }
            mqtt: { host: 127.0.0.1, port: \(broker.port), client_id: memory, availability_topic: memory/status }
            routes:
              - name: arrivals
                match: { event: tag.arrived }
                actions: [{ mqtt: { topic: "memory/{{reader}}", qos: 1 } }]
              - name: removals
                match: { event: tag.removed }
                actions: [{ mqtt: { topic: "memory/removed/{{reader}}", qos: 1 } }]
            """.write(toFile: directory + "/tagrouter.yaml", atomically: true, encoding: .utf8)
        let daemon = try RunningTool(
            binary, ["run", "--config", directory + "/tagrouter.yaml", "--control", directory + "/control.sock"],
            environment: ["LIBNFC_AUTO_SCAN": "false", "LIBNFC_INTRUSIVE_SCAN": "false"], directory: directory)
        try await subscriber.waitFor("the daemon online") { $0.topic == "memory/status" && $0.text == "online" }

        let connection = try ControlConnection(path: control)
        for index in 1...Self.taps {
            try connection.send(#"{"op":"place","type":"ntag215","uid":"04a224b2c35e80","records":[{"uri":"https://example.com/door"}]}"#)
            _ = try await subscriber.waitFor(count: index) { $0.topic == "memory/door" }
            try connection.send(#"{"op":"remove"}"#)
            _ = try await subscriber.waitFor(count: index) { $0.topic == "memory/removed/door" }
        }
        let resident = try #require(daemon.residentKiB, "no VmRSS for the daemon")
        #expect(resident <= Self.budgetKiB, "tagrouter run holds \(resident) kB after \(Self.taps) taps; the budget is \(Self.budgetKiB) kB (docs/development/memory.md)")

        daemon.signal(SIGTERM)
        #expect(try await daemon.termination().status == .exited(0))
        simulator.signal(SIGTERM)
        _ = try await simulator.termination()
    }
}

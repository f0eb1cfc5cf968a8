import Foundation
import Harness
import TestSupport
import Testing

/// The tests' own mosquitto, which tests running side by side (the lanes of `make test`) share a machine with.
@Suite struct BrokerHarnessTests {
    /// Started again while it runs (some tests do right after creating it, which already starts it), it is
    /// restarted, not doubled: a second mosquitto could not bind the port and ended, the broker kept only that
    /// one, and the first outlived the test (found alive after `make test`).
    @Test func startingARunningBrokerLeavesNoOtherBehind() async throws {
        let broker = try await MosquittoBroker()
        try await broker.start()
        #expect(MosquittoBroker.accepts(broker.port))
        await broker.stop()
        #expect(!MosquittoBroker.accepts(broker.port), "a mosquitto still listens on \(broker.port) after stop()")
    }

    /// A port taken by another process while the broker was down: `start` fails and says so, instead of
    /// returning because something accepts there (this mosquitto could not bind it and ended).
    @Test func aPortTakenMeanwhileFailsTheStart() async throws {
        let broker = try await MosquittoBroker()
        await broker.stop()
        let squatter = try RunningTool("/usr/bin/python3", ["-c", """
            import socket, sys
            listener = socket.socket()
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind(("127.0.0.1", int(sys.argv[1])))
            listener.listen()
            print("listening", flush=True)
            sys.stdin.read()
            """, String(broker.port)], input: true)
        try await squatter.waitForStdout(containing: "listening")
        await #expect(throws: TestFailure.self) { try await broker.start() }
    }
}

/// Everything a helper starts ends with the test that made the helper, also when the test throws: a child still
/// ending (mosquitto saving its store, mosquitto_sub disconnecting) when the test process moved on or exited
/// outlived its test (`make test` found them after the lanes ended, about one run in three).
@Suite struct HelperEndingTests {
    @Test func helpersDroppedByAThrowLeaveNoProcessAndNoDirectory() async throws {
        var started: [pid_t] = []
        var directory = ""
        do {
            var options = MosquittoBroker.Options()
            options.persistence = true  // on SIGTERM it writes its store first
            let broker = try await MosquittoBroker(options)
            let subscriber = try Subscriber(port: broker.port, filter: "#", qos: 1, clientID: "kept")
            try await subscriber.waitUntilSubscribed()
            let tool = try RunningTool("/bin/sleep", ["600"])
            started = [try #require(broker.pid), subscriber.pid, tool.pid]
            directory = broker.directory.path
            throw TestFailure(description: "a step failed while they ran")
        } catch is TestFailure {}
        // No waiting: the helpers are gone, so must their processes be.
        for pid in started {
            #expect(hasEnded(pid), "process \(pid) still runs after its helper went away")
        }
        #expect(!FileManager.default.fileExists(atPath: directory), "the broker's directory is still there: \(directory)")
    }

    /// What a helper starts carries the test's identity, which the lane runner names when it outlives the test.
    @Test func childrenCarryTheirTestsIdentity() async throws {
        let broker = try await MosquittoBroker()
        let subscriber = try Subscriber(port: broker.port, filter: "#")
        let tool = try RunningTool("/bin/sleep", ["600"])
        let expected = "TAGROUTER_TEST=\(try #require(Test.current).id)"
        for pid in [try #require(broker.pid), subscriber.pid, tool.pid] {
            // Read once the exec is through: until then the kernel shows an empty environment.
            var environment: [String] = []
            _ = await eventually {
                environment = ((try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/environ"))) ?? Data())
                    .split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
                return environment.contains { $0.hasPrefix("PATH=") }
            }
            #expect(environment.contains(expected), "process \(pid): \(environment.filter { $0.hasPrefix("TAGROUTER") })")
        }
    }
}

import Harness
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

import Harness
import Testing

/// The tests' own mosquitto: started again while it runs (some tests do right after creating it, which
/// already starts it), it is restarted, not doubled. A second mosquitto could not bind the port and exited,
/// the broker kept only that one, and the first outlived the test (found alive after `make test`).
@Suite struct BrokerHarnessTests {
    @Test func startingARunningBrokerLeavesNoOtherBehind() async throws {
        let broker = try await MosquittoBroker()
        try await broker.start()
        #expect(MosquittoBroker.accepts(broker.port))
        await broker.stop()
        #expect(!MosquittoBroker.accepts(broker.port), "a mosquitto still listens on \(broker.port) after stop()")
    }
}

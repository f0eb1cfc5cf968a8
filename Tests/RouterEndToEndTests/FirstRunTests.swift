import DaemonTesting
import Foundation
import Harness
import OrderedJSON
import Testing
import TestSupport

/// What a first run says on a machine with no broker and no reader: one line each, with the next step.
@Suite struct FirstRunTests {
    /// The embedded default's shape (log, and MQTT without spool) with no broker running.
    @Test func noBrokerIsSaidOnceThenEventsAreQuiet() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let port = try MosquittoBroker.freePort()
        let file = try scratch.write("tagrouter.yaml", """
            mqtt: { host: 127.0.0.1, port: \(port), hold: 200ms }
            state_dir: \(scratch.path)/state
            routes:
              - name: everything
                actions:
                  - log: "tap {{tag.uid}}"
                  - mqtt: { qos: 0, spool: false, retry: { attempts: 1 } }
            """)
        // In process: what the log says at info, as `run` would print it.
        let daemon = try TestDaemon(configFile: file)
        for uid in ["01", "02", "03"] { try await daemon.send(arrival(uid: uid)) }
        #expect(try await daemon.output(count: 3) == ["tap 01", "tap 02", "tap 03"])
        daemon.closeInput()
        try await daemon.finished()

        let log = daemon.log.filter { $0.level >= .info }
        let outage = log.filter { $0.message.hasPrefix("no MQTT broker") }
        #expect(outage.map(\.message) == ["no MQTT broker on 127.0.0.1:\(port); publishing resumes when one answers"])
        #expect(log.allSatisfy { $0.level != .error && !$0.message.contains("delivery failed") }, "\(log.map(\.message))")
        let stopped = try #require(log.last { $0.message == "stopped" })
        #expect(JSONValue.object(stopped.fields)["actions"]?["everything.1.mqtt"]?["failed"] == 3, "the deliveries were tried and counted, only not logged one by one")
    }

    @Test func noReaderIsSaidOnceWithTheNextSteps() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let file = try scratch.write("tagrouter.yaml", """
            readers: [{name: door, device: "pn532_uart:\(scratch.path)/no-such-reader"}]
            state_dir: \(scratch.path)/state
            routes: [{actions: [log]}]
            """)
        let daemon = try TagrouterProcess(["run", "--config", file, "--log-format", "human"], directory: scratch.path)
        defer { daemon.stop() }
        let line = try await daemon.stderr(containing: "not found; waiting for it")
        #expect(line.hasPrefix("WARNING reader 'pn532_uart:\(scratch.path)/no-such-reader' not found; waiting for it "
            + "(`tagrouter devices` says why; `tagrouter demo` shows tagrouter at work on a simulated reader, "
            + "and `tagrouter simulate` runs one for your own config)"))
        daemon.signal(SIGTERM)
        #expect(try await daemon.exitStatus() == 0)
        #expect(daemon.stderr.filter { $0.contains("not found; waiting for it") }.count == 1)
    }
}

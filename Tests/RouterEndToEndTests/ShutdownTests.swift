import Foundation
import OrderedJSON
import Testing
import TestSupport

/// SIGTERM while an action is stuck: the daemon still stops on time, and what
/// it could not deliver waits in the spool for the next start.
@Suite struct ShutdownTests {
    private static func config(stateDirectory: String, url: String) -> String {
        """
        state_dir: \(stateDirectory)
        shutdown_timeout: 1s
        routes:
          - name: hook
            actions:
              - log: "{{tag.uid}}"
              - webhook: { url: "\(url)", timeout: 60s, spool: true }
        """
    }

    @Test func aWebhookStuckAtSIGTERMIsSpooledAndDeliveredOnceAfterRestart() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let state = scratch.path + "/state"
        let hanging = try await HTTPTestServer([.init(delay: 60)])
        let file = try scratch.write("tagrouter.yaml", Self.config(stateDirectory: state, url: hanging.url))
        let arguments = ["run", "--config", file, "--events-from", "-", "--log-format", "json"]
        let events = (1...5).map { arrival(uid: String(format: "%02x", $0)) }

        let first = try TagrouterProcess(arguments, directory: scratch.path)
        defer { first.stop() }
        for event in events { first.send(event) }
        // The log action of the same route printed them all: the router accepted every one.
        _ = try await first.stdout(count: events.count)
        _ = await hanging.waitForRequests(1)
        first.signal(SIGTERM)
        // It stops at shutdown_timeout (1 s), not when the webhook answers (60 s, beyond this deadline): the
        // deliveries in flight are spooled (below), not waited for.
        #expect(try await first.exitStatus(timeout: .seconds(20)) == 0)
        #expect(!first.stderr.contains { $0.contains("lost") }, "\(first.stderr.filter { $0.contains("lost") })")
        let stopped = try JSONValue.parse(try #require(first.stderr.last { $0.contains("\"stopped\"") }))
        #expect(stopped["actions"]?["hook.1.webhook"]?["spooled"] == .int(Int64(events.count)))

        let answering = try await HTTPTestServer([.init()])
        _ = try scratch.write("tagrouter.yaml", Self.config(stateDirectory: state, url: answering.url))
        let second = try TagrouterProcess(arguments, directory: scratch.path)
        defer { second.stop() }
        let delivered = await answering.waitForRequests(events.count)
        second.closeInput()
        #expect(try await second.exitStatus() == 0)
        let ids = (await answering.requests).map { $0.headers["idempotency-key"] ?? "" }
        #expect(ids == events.map { $0["id"]?.stringValue ?? "?" }, "each spooled event once, in order")
        #expect(delivered.count == events.count)
        let restarted = try JSONValue.parse(try #require(second.stderr.last { $0.contains("\"stopped\"") }))
        #expect(restarted["actions"]?["hook.1.webhook"]?["delivered"] == .int(Int64(events.count)))
        #expect(second.stdout.isEmpty, "the log action delivered its events the first time")
    }
}

import Foundation
import TagCore
import Testing
import TestSupport

/// The daemon's log answers "did my tap do anything?": one info line per tap with
/// the routes that matched (or none), a line per action only for what needs
/// attention — a flood of the same failure as one line — and the recovery.
@Suite struct ActivityLogTests {
    @Test func oneLinePerTapTroubleOnceAndTheRecovery() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let server = try await HTTPTestServer([.init(status: 500), .init(status: 500), .init(status: 500), .init(status: 200)])
        let config = try scratch.write("tagrouter.yaml", """
            state_dir: \(scratch.path)/state
            routes:
              - name: hook
                match: { uid: "04a1" }
                actions:
                  - shell: { command: [/bin/true] }
                  - webhook: { url: "http://127.0.0.1:\(server.port)/hook", retry: { attempts: 1 }, spool: false }
            """)
        let taps = (0..<4).map { _ in arrival(uid: "04a1", uri: "https://example.com/door") } + [arrival(uid: "0499")]
        let events = try scratch.write("events.jsonl", taps.map { $0.serialized() + "\n" }.joined())
        let run = try await ToolRun(
            BuiltProducts.tagrouter.path, ["run", "--config", config, "--events-from", events, "--log-format", "json"], directory: scratch.path)
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stderr.split(separator: "\n").compactMap { try? JSONValue.parse(String($0)) }
        func messages(_ prefix: String) -> [JSONValue] { lines.filter { $0["msg"]?.stringValue?.hasPrefix(prefix) == true } }

        let tapLines = messages("tap on door: ")
        #expect(tapLines.map { $0["msg"]?.stringValue } == Array(repeating: "tap on door: ntag215 04a1 https://example.com/door → hook", count: 4)
            + ["tap on door: ntag215 0499 → no route matched"])
        #expect(tapLines.allSatisfy { $0["level"] == "info" })
        #expect(tapLines[0]["routes"] == ["hook"])
        #expect(tapLines[0]["tag_uid"] == "04a1")
        #expect(tapLines[0]["reader"] == "door")
        #expect(tapLines[0]["event_id"] == taps[0]["id"])
        #expect(tapLines[4]["routes"] == [])

        // Three failures for the same reason: one line; then the recovery says how long it took.
        let failures = messages("hook.1.webhook: delivery failed")
        try #require(failures.count == 1, "\(run.stderr)")
        #expect(failures[0]["level"] == "error")
        #expect(failures[0]["reason"]?.stringValue?.contains("HTTP 500") == true)
        #expect(failures[0]["action"] == "hook.1.webhook")
        let recoveries = messages("hook.1.webhook: recovered after ")
        #expect(recoveries.count == 1, "\(run.stderr)")
        #expect(recoveries.first?["level"] == "info")

        // Successes are debug lines: neither the shell command nor the delivered webhook says anything.
        #expect(!run.stderr.contains("shell command finished"))
        #expect(messages("hook.0.shell").isEmpty)
        #expect(await server.waitForRequests(4).count == 4)
    }
}

import ExecPlugin
import Foundation
import TagRouter
import TestSupport
import Testing

/// The exec action's reply timeout, against real python3 plugins: a plugin
/// that stops answering is terminated when the timeout passes and restarted, and
/// an answered event leaves nothing of its timeout behind (issue 8).
@Suite(.serialized) struct ExecReplyTimerTests {
    /// Answers `{"ok":true}` (with the event's id) to every event, except that it never answers `hang`.
    /// Appends every hello it reads to argv[1].
    static let plugin = #"""
    import json, sys
    with open(sys.argv[1], "a") as log:
        log.write(sys.stdin.readline())
    for line in sys.stdin:
        event = json.loads(line)
        if event.get("text") != "hang":
            sys.stdout.write(json.dumps({"ok": True, "id": event["id"]}) + "\n")
            sys.stdout.flush()
    """#

    static func running(_ options: String, _ body: (any Action, Sandbox) async throws -> Void) async throws {
        let sandbox = try Sandbox()
        let script = try sandbox.write("plugin.py", plugin)
        let (plugin, action) = try makeAction(ExecPlugin.self, "command: [python3, \(script), \(sandbox.file("hello.log"))]\n" + options)
        try await plugin.whileRunning { try await body(action, sandbox) }
    }

    static func send(_ text: String, to action: any Action) async -> ActionError? {
        await failure(of: action, Delivery(event: tagEvent(text: text), route: "test"))
    }

    @Test func aPluginThatStopsAnsweringIsTerminatedAtTheTimeoutAndRestarted() async throws {
        try await Self.running("timeout: 1s\nrestart_backoff: 10ms") { action, sandbox in
            // python3 may take longer than the timeout to start on a loaded machine: a
            // first answer that came late restarted it, which the hellos below count.
            #expect(await eventually { await Self.send("first", to: action) == nil })
            let hellos = try sandbox.read("hello.log").split(separator: "\n").count
            let started = ContinuousClock.now
            let error = try #require(await Self.send("hang", to: action))
            #expect(error.isRetryable && error.description.contains("gave no answer within 1.0 seconds; restarting it"), "\(error)")
            #expect(ContinuousClock.now - started >= .seconds(1), "terminated before its timeout")
            #expect(await eventually { await Self.send("after", to: action) == nil }, "the restarted plugin answers")
            #expect(try sandbox.read("hello.log").split(separator: "\n").count == hellos + 1, "started again")
        }
    }

    /// With a timer task per event, each answered event left its cancelled sleep and
    /// task (~0.8 KiB) alive until the timeout would have passed: 5,000 events with the
    /// default 30 s timeout held 3.9 MB more. One timer per plugin holds nothing per event.
    @Test func answeredEventsLeaveNoTimersBehind() async throws {
        try await Self.running("") { action, _ in
            #expect(await eventually { await Self.send("warm-up", to: action) == nil })
            let before = heapBytesInUse()
            for _ in 0..<5_000 {
                let error = await Self.send("tap", to: action)
                try #require(error == nil, "an event was not answered: \(String(describing: error))")
            }
            let held = heapBytesInUse() - before
            #expect(held < 1 << 20, "\(held) bytes more in use after 5,000 answered events")
        }
    }
}

import ExecPlugin
import Foundation
import OrderedJSON
import TagRouter
import TestSupport
import Testing

@Suite struct ExecPluginTests {
    @Test func theShippedExamplePluginWorks() async throws {
        let sandbox = try Sandbox()
        let (plugin, action) = try makeAction(
            ExecPlugin.self, "command: [python3, \(repositoryRoot)/config/examples/exec-plugin.py, \(sandbox.file("taps.log"))]")
        try await plugin.whileRunning {
            try await action.perform(Delivery(event: tagEvent(text: "first"), route: "test"))
            try await action.perform(Delivery(event: tagEvent(text: "$(touch pwned)", reader: "desk"), route: "test"))
        }
        let lines = try sandbox.read("taps.log").split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.hasSuffix(" door 04a224b2c35e80 first") == true)
        #expect(lines.last?.hasSuffix(" desk 04a224b2c35e80 $(touch pwned)") == true)
        #expect(!sandbox.exists("pwned"))
    }

    @Test func helloRepliesRetryFlagAndRestarts() async throws {
        let sandbox = try Sandbox()
        let script = try sandbox.write("plugin.py", Self.testPlugin)
        let (plugin, action) = try makeAction(ExecPlugin.self, """
            command: [python3, \(script), \(sandbox.file("hello.log"))]
            restart_backoff: 50ms
            """)
        try await plugin.whileRunning {
            func send(_ text: String) async -> ActionError? { await failure(of: action, Delivery(event: tagEvent(text: text), route: "test")) }
            func hellos() throws -> [JSONValue] { try sandbox.read("hello.log").split(separator: "\n").map { try JSONValue.parse(String($0)) } }

            #expect(await send("ok") == nil)
            let hello = try #require(try hellos().first)
            #expect(hello["protocol"] == 2)
            #expect(hello["route"] == "test")

            let failed = try #require(await send("fail"))
            #expect(!failed.isRetryable && failed.description.contains("nope"))
            let later = try #require(await send("retry"))
            #expect(later.isRetryable && later.description.contains("later"))
            #expect(await send("unknown-fields") == nil)
            #expect(await send("hello-2") == nil, "the plugin's own hello in protocol 2 is read past")
            #expect(try hellos().count == 1, "the plugin was restarted although it behaved")

            let crashed = try #require(await send("crash"))
            #expect(crashed.isRetryable)
            #expect(await eventually { await send("ok") == nil }, "the plugin did not come back after crashing")
            #expect(try hellos().count == 2)

            let garbled = try #require(await send("garbage"))
            #expect(garbled.isRetryable && garbled.description.contains("not an answer"))
            #expect(await eventually { await send("ok") == nil })
            #expect(try hellos().count == 3)

            let refused = try #require(await send("hello-1"))
            #expect(!refused.isRetryable && refused.description.contains("speaks protocol 1"))
            #expect(await eventually { await send("ok") == nil })
            #expect(try hellos().count == 4)

        }
    }

    @Test func aPluginThatDoesNotAnswerIsRestarted() async throws {
        let sandbox = try Sandbox()
        let script = try sandbox.write("plugin.py", Self.testPlugin)
        let (plugin, action) = try makeAction(ExecPlugin.self, """
            command: [python3, \(script), \(sandbox.file("hello.log"))]
            timeout: 3s
            restart_backoff: 50ms
            """)
        try await plugin.whileRunning {
            func answers() async -> Bool { await failure(of: action, Delivery(event: tagEvent(text: "ok"), route: "test")) == nil }
            func hellos() throws -> Int { try sandbox.read("hello.log").split(separator: "\n").count }
            // Up and answering first (a slow start on a busy machine may itself time out).
            #expect(await eventually { await answers() })
            let before = try hellos()
            // A late answer from a slow start may still restart the plugin under load
            // ("exited before taking the event"): try the hang again until it is the one that fails.
            var hung: ActionError?
            for _ in 1...5 {
                hung = await failure(of: action, Delivery(event: tagEvent(text: "hang"), route: "test"))
                if hung?.description.contains("no answer") == true { break }
                #expect(await eventually { await answers() }, "the restarted plugin answers")
            }
            #expect(hung?.isRetryable == true && hung?.description.contains("no answer") == true, "\(String(describing: hung))")
            #expect(await eventually { await answers() })
            #expect(try hellos() > before)
        }
    }

    @Test func emptyCommandIsAConfigError() {
        #expect(throws: ConfigErrors.self) { try makeAction(ExecPlugin.self, "command: []") }
        #expect(throws: ConfigErrors.self) { try makeAction(ExecPlugin.self, "timeout: 1s") }
        #expect(throws: ConfigErrors.self) { try makeAction(ExecPlugin.self, "{command: [cat], cwd: /etc/hostname}") }
    }

    /// Answers by the event's text: ok, fail, retry, crash, garbage, hang,
    /// unknown-fields, hello-2 / hello-1 (its own hello first); appends every
    /// hello it reads to the file in argv[1].
    static let testPlugin = #"""
    import json, sys, time
    with open(sys.argv[1], "a") as log:
        log.write(sys.stdin.readline())
    for line in sys.stdin:
        event = json.loads(line)
        text = event.get("text")
        print(f"got {text}", file=sys.stderr, flush=True)
        if text == "crash":
            sys.exit(3)
        if text == "hang":
            time.sleep(300)
        if text == "hello-2":
            print(json.dumps({"protocol": 2, "name": "test"}), flush=True)
        if text == "hello-1":
            print(json.dumps({"protocol": 1}), flush=True)
            continue
        reply = {"ok": True, "id": event["id"]}
        if text == "fail":
            reply = {"ok": False, "id": event["id"], "error": "nope"}
        elif text == "retry":
            reply = {"ok": False, "id": event["id"], "error": "later", "retry": True}
        elif text == "unknown-fields":
            reply = {"ok": True, "id": event["id"], "future": {"x": 1}}
        print("this is not json" if text == "garbage" else json.dumps(reply), flush=True)
    """#
}

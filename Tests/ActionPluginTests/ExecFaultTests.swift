import ExecPlugin
import Foundation
import Glibc
import TagCore
import TagRouter
import TestSupport
import Testing

/// Exec plugins that break the protocol or leave processes behind, as real
/// python3 programs: answers nobody asked for restart the plugin instead of
/// acknowledging later events, an over-long line is refused without buffering
/// it, and background children die with the plugin.
@Suite struct ExecFaultTests {
    /// Answers `{"ok":true}`, or for `fail` `{"ok":false}`; for `chatty` then writes
    /// three more answers nobody asked for, for `flood` a hundred thousand, for
    /// `long` answers with a 2 MiB line; for `spawn` starts `sleep 300` in the
    /// background and writes its pid to argv[2]; for `crash` exits. Appends every
    /// hello it reads to argv[1].
    static let plugin = #"""
    import json, subprocess, sys
    with open(sys.argv[1], "a") as log:
        log.write(sys.stdin.readline())
    for line in sys.stdin:
        text = json.loads(line).get("text")
        if text == "crash":
            sys.exit(3)
        if text == "spawn":
            with open(sys.argv[2], "w") as pid:
                pid.write(str(subprocess.Popen(["sleep", "300"], stdin=subprocess.DEVNULL).pid))
        if text == "long":
            print(json.dumps({"ok": True, "pad": "x" * (2 << 20)}), flush=True)
            continue
        print(json.dumps({"ok": text != "fail", "error": "nope"}), flush=True)
        extra = {"chatty": 3, "flood": 100_000}.get(text, 0)
        for _ in range(extra):
            print(json.dumps({"ok": True}), flush=True)
    """#

    final class Running {
        let sandbox: Sandbox
        let plugin: ExecPlugin
        let action: any Action

        init() async throws {
            sandbox = try Sandbox()
            let script = try sandbox.write("plugin.py", ExecFaultTests.plugin)
            (plugin, action) = try makeAction(ExecPlugin.self, """
                command: [python3, \(script), \(sandbox.file("hello.log")), \(sandbox.file("background.pid"))]
                restart_backoff: 50ms
                """)
        }

        func send(_ text: String) async -> ActionError? { await failure(of: action, Delivery(event: tagEvent(text: text), route: "test")) }

        var starts: Int { ((try? sandbox.read("hello.log")) ?? "").split(separator: "\n").count }

        /// Sends `fail` until the plugin answers it; every answer must be that failure,
        /// never a success left over from unasked answers.
        func failAnswered() async -> Bool {
            await eventually {
                switch await send("fail") {
                case nil:
                    Issue.record("an answer nobody asked for was counted as the answer to 'fail'")
                    return true
                case .permanent(let message)?:
                    return message.contains("nope")
                case .retryable?, .targetDown?:
                    return false  // restarting
                }
            }
        }
    }

    @Test(arguments: ["chatty", "flood"])
    func answersNobodyAskedForRestartThePlugin(_ text: String) async throws {
        let running = try await Running()
        try await running.plugin.whileRunning {
            #expect(await running.send(text) == nil)
            // What it writes while no event waits breaks the pairing: it is restarted.
            // (A line racing with the next event cannot be told from its answer; the
            // protocol has no ids. The unbounded buffering and the miscount are what ends.)
            #expect(await eventually { running.starts == 2 }, "the plugin was not restarted")
            #expect(await running.failAnswered())
            #expect(running.starts == 2, "the plugin was restarted once")
            #expect(await running.send("ok") == nil)
        }
    }

    @Test func aLineOfAMebibyteOrMoreIsAProtocolError() async throws {
        let running = try await Running()
        try await running.plugin.whileRunning {
            let error = try #require(await running.send("long"))
            #expect(error.isRetryable && error.description.contains("answered a line of 1048576 bytes or more; restarting it"), "\(error)")
            #expect(await running.failAnswered())
            #expect(running.starts == 2)
        }
    }

    @Test(arguments: ["crash", "stop"])
    func backgroundChildrenDieWithThePlugin(_ ending: String) async throws {
        let running = try await Running()
        let background = try await running.plugin.whileRunning {
            #expect(await running.send("spawn") == nil)
            let background = try #require(pid_t(try running.sandbox.read("background.pid")))
            #expect(kill(background, 0) == 0, "the background child runs while the plugin does")
            if ending == "crash" {
                #expect(await running.send("crash")?.isRetryable == true)
                #expect(try await waitUntilGone(background), "background child \(background) outlived the plugin that crashed")
            }
            return background
        }
        defer { kill(background, SIGKILL) }
        if ending == "stop" {
            #expect(try await waitUntilGone(background), "background child \(background) outlived the stopped plugin")
        }
    }
}

import ExecPlugin
import Foundation
import Glibc
import Lifecycle
import TagRouter
import TestSupport
import Testing

/// Exec plugins that break the protocol or leave processes behind, as real
/// python3 programs: answers nobody asked for restart the plugin instead of
/// acknowledging later events, an answer counts only when it names the event
/// sent, an over-long line is refused without buffering it, a flood of output
/// does not keep a plugin from being stopped, and background children die with
/// the plugin.
@Suite struct ExecFaultTests {
    /// Answers `{"ok":true}`, or for `fail` `{"ok":false}`, naming the event's id; for `chatty` then writes
    /// three more answers nobody asked for, for `flood` a hundred thousand, for
    /// `long` answers with a 2 MiB line; for `spawn` starts `sleep 300` in the
    /// background and writes its pid to argv[2], for `detach` the same in a session
    /// of its own (`setsid`: out of the plugin's process group); for `crash` exits. Appends every
    /// hello it reads to argv[1].
    static let plugin = #"""
    import json, subprocess, sys
    with open(sys.argv[1], "a") as log:
        log.write(sys.stdin.readline())
    for line in sys.stdin:
        event = json.loads(line)
        text = event.get("text")
        if text == "crash":
            sys.exit(3)
        if text in ("spawn", "detach"):
            with open(sys.argv[2], "w") as pid:
                child = subprocess.Popen(["sleep", "300"], stdin=subprocess.DEVNULL, start_new_session=text == "detach")
                pid.write(str(child.pid))
        if text == "long":
            print(json.dumps({"ok": True, "id": event["id"], "pad": "x" * (2 << 20)}), flush=True)
            continue
        print(json.dumps({"ok": text != "fail", "id": event["id"], "error": "nope"}), flush=True)
        extra = {"chatty": 3, "flood": 100_000}.get(text, 0)
        for _ in range(extra):
            print(json.dumps({"ok": True, "id": event["id"]}), flush=True)
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
            // (A line racing with the next event names the old event: not an answer either.)
            #expect(await eventually { running.starts == 2 }, "the plugin was not restarted")
            #expect(await running.failAnswered())
            #expect(running.starts == 2, "the plugin was restarted once")
            #expect(await running.send("ok") == nil)
        }
    }

    /// Plugins that answer without knowing the event: one never reads its stdin
    /// and writes answers on its own, one answers before reading each event; each
    /// either names no event or guesses an id. None of their answers is a delivery.
    static let liars = [
        ("never-reads", #"{"ok": true}"#), ("never-reads", #"{"ok": true, "id": "guess"}"#),
        ("answers-first", #"{"ok": true}"#), ("answers-first", #"{"ok": true, "id": "guess"}"#),
    ]

    @Test(arguments: liars)
    func answersThatDoNotNameTheEventSentAreNotDeliveries(_ kind: String, _ answer: String) async throws {
        let sandbox = try Sandbox()
        let script = try sandbox.write("liar.py", """
            import sys, time
            answer = sys.argv[1] + "\\n"
            while True:
                sys.stdout.write(answer)
                sys.stdout.flush()
                if sys.argv[2] == "answers-first":
                    sys.stdin.readline()
                else:
                    time.sleep(0.002)
            """)
        let (plugin, action) = try makeAction(ExecPlugin.self, """
            command: [python3, \(script), '\(answer)', \(kind)]
            restart_backoff: 10ms
            max_restart_backoff: 10ms
            """)
        try await plugin.whileRunning {
            // Until five answers met a waiting delivery (others find the plugin restarting).
            func refused() async -> Bool {
                guard let error = await failure(of: action, Delivery(event: tagEvent(text: "open the door"), route: "test")) else {
                    Issue.record("an answer the plugin wrote without naming the event was counted as a delivery")
                    return true
                }
                if !error.isRetryable { Issue.record("\(error)") }
                return error.description.contains("not for the event sent")
            }
            for _ in 0..<5 {
                #expect(await eventually { await refused() })
            }
        }
    }

    /// A plugin flooding its stdout with blank lines (allowed, never a protocol
    /// error) and ignoring the end of its stdin is still stopped: the flood is
    /// read in slices that let the terminate request through, and what waits
    /// unread is bounded.
    @Test func aPluginFloodingItsOutputIsStillStopped() async throws {
        let sandbox = try Sandbox()
        let script = try sandbox.write("flood.py", """
            import os, sys
            with open(sys.argv[1], "w") as pid:
                pid.write(str(os.getpid()))
            line, written = b" " * 65535 + b"\\n", 0
            out = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT)
            while True:
                written += os.write(1, line)
                os.pwrite(out, b"%20d" % written, 0)
            """)
        let (plugin, _) = try makeAction(ExecPlugin.self, "command: [python3, \(script), \(sandbox.file("pid")), \(sandbox.file("written"))]")
        let progress = sandbox.file("written")
        @Sendable func written() -> Int { Int(((try? String(contentsOfFile: progress, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespaces)) ?? 0 }
        let stopped = Latch()
        let flooding = Latch()
        let running = Task {
            try await plugin.whileRunning {
                // More than may wait unread (ChildOptions.bufferedBytes, 4 MiB) plus the most a pipe holds (1 MiB,
                // fs.pipe-max-size) and a line: the flood gets this far only while lines are taken from a full pipe.
                // (It was 16 MiB: the same proof, three times the reading.)
                #expect(await eventually(within: 60) { written() >= (4 << 20) + (1 << 20) + (1 << 16) }, "the plugin did not get to flood")
                flooding.open()
            }
            stopped.open()
        }
        defer {
            if let pid = pid_t((try? sandbox.read("pid")) ?? "") { kill(-pid, SIGKILL) }
            running.cancel()
        }
        await flooding.wait()
        #expect(await eventually(within: 60) { stopped.isOpen }, "the flooding plugin was not stopped")
        let pid = try #require(pid_t(try sandbox.read("pid")))
        #expect(try await waitUntilGone(pid))
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

    /// Issue 31: also a child that left the plugin's process group and session (`detach`).
    @Test(arguments: ["crash", "stop"], ["spawn", "detach"])
    func backgroundChildrenDieWithThePlugin(_ ending: String, _ start: String) async throws {
        let running = try await Running()
        let background = try await running.plugin.whileRunning {
            #expect(await running.send(start) == nil)
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

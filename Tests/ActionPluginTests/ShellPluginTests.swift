import ChildProcess
import Foundation
import Glibc
import OrderedJSON
import ShellPlugin
import TagRouter
import TestSupport
import Testing

@Suite struct ShellPluginTests {
    @Test(arguments: hostileTexts)
    func argvFormPassesTagTextAsOneArgument(text: String) async throws {
        let sandbox = try Sandbox()
        try sandbox.write("home/canary", "still here")
        let (_, action) = try makeAction(ShellPlugin.self, """
            command: [/bin/sh, -c, 'printf "%s" "$1" > argv', sh, "{{text}}"]
            cwd: \(sandbox.path)
            env: {HOME: \(sandbox.file("home"))}
            """)
        try await action.perform(Delivery(event: tagEvent(text: text), route: "test"))
        #expect(try sandbox.read("argv") == text)
        #expect(!sandbox.exists("pwned"))
        #expect(sandbox.exists("home/canary"))
    }

    @Test(arguments: hostileTexts)
    func scriptFormSeesTagValuesOnlyInEnvironment(text: String) async throws {
        let sandbox = try Sandbox()
        try sandbox.write("home/canary", "still here")
        let (_, action) = try makeAction(ShellPlugin.self, """
            script: 'printf "%s" "$TAG_TEXT" > text; printf "%s|%s|%s|%s|%s" "$TAG_EVENT" "$TAG_UID" "$TAG_TYPE" "$TAG_URI" "$TAG_READER" > tag; cat > stdin.json'
            cwd: \(sandbox.path)
            env: {HOME: \(sandbox.file("home"))}
            """)
        let event = tagEvent(text: text, uri: "https://example.com/$(touch pwned)")
        try await action.perform(Delivery(event: event, route: "test"))
        #expect(try sandbox.read("text") == text)
        #expect(try sandbox.read("tag") == "tag.arrived|04a224b2c35e80|ntag215|https://example.com/$(touch pwned)|door")
        let stdin = try JSONValue.parse(sandbox.read("stdin.json"))
        #expect(stdin["id"] == .string(event.id))
        #expect(stdin["text"] == .string(text))
        #expect(!sandbox.exists("pwned"))
        #expect(sandbox.exists("home/canary"))
    }

    /// A NUL would silently cut the value (`rm -rf /tmp/x\0/..` → `/tmp/x`): the event fails instead.
    @Test(arguments: [
        ("command: [/bin/sh, -c, 'printf \"%s\" \"$1\" > out', sh, \"{{text}}\"]", "argument 5"),
        ("script: 'printf \"%s\" \"$TAG_TEXT\" > out'", "environment variable TAG_TEXT"),
    ])
    func aNULInTagTextFailsTheEventInsteadOfCuttingTheValue(_ yaml: String, _ place: String) async throws {
        let sandbox = try Sandbox()
        let (_, action) = try makeAction(ShellPlugin.self, "{\(yaml), cwd: \(sandbox.path)}")
        let error = try #require(await failure(of: action, Delivery(event: tagEvent(text: "keep\0cut"), route: "test")))
        #expect(!error.isRetryable)
        #expect(error.description == "shell: \(place) holds a NUL character at character 5; it would be cut short there, so the command is not run")
        #expect(!sandbox.exists("out"), "the command ran")
    }

    @Test func scalarShortFormIsAnUntemplatedScript() async throws {
        let sandbox = try Sandbox()
        let (_, action) = try makeAction(ShellPlugin.self, "'echo \"{{text}}\" > out'", directory: sandbox.path)
        let (_, withCwd) = try makeAction(ShellPlugin.self, "{script: 'echo \"{{text}}\" > out', cwd: .}", directory: sandbox.path)
        try await withCwd.perform(Delivery(event: tagEvent(text: "$(touch pwned)"), route: "test"))
        #expect(try sandbox.read("out") == "{{text}}\n")
        #expect(action.describe(Delivery(event: tagEvent(), route: "test")).contains("/bin/sh -c"))
        #expect(!sandbox.exists("pwned"))
    }

    @Test func timeoutKillsTheProcessGroup() async throws {
        let sandbox = try Sandbox()
        let (_, action) = try makeAction(ShellPlugin.self, """
            script: 'sleep 300 & echo $! > grandchild; wait'
            cwd: \(sandbox.path)
            timeout: 3s
            """)  // time for the shell to start and write the pid on a loaded machine
        let error = try #require(await failure(of: action, Delivery(event: tagEvent(), route: "test")))
        #expect(!error.isRetryable)
        #expect(error.description.contains("timed out"))
        let grandchild = try #require(pid_t(sandbox.read("grandchild").trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(await eventually { isGone(grandchild) }, "the background sleep outlived the timeout")
    }

    @Test func nonZeroExitIsRetryableOnlyWithRetry() async throws {
        let (_, plain) = try makeAction(ShellPlugin.self, "command: [/bin/sh, -c, 'echo boom >&2; exit 3']")
        let (_, retrying) = try makeAction(ShellPlugin.self, "{command: [/bin/sh, -c, 'exit 3'], retry: {attempts: 2}}")
        let delivery = Delivery(event: tagEvent(), route: "test")
        let once = try #require(await failure(of: plain, delivery))
        #expect(!once.isRetryable)
        #expect(once.description.contains("exit 3"))
        #expect(try #require(await failure(of: retrying, delivery)).isRetryable)
    }

    @Test func missingProgramSaysSo() async throws {
        let (_, action) = try makeAction(ShellPlugin.self, "command: [no-such-program-for-tagrouter, x]")
        let error = try #require(await failure(of: action, Delivery(event: tagEvent(), route: "test")))
        #expect(error.description.contains("command not found: 'no-such-program-for-tagrouter'"))
    }

    @Test func concurrencyLimitHoldsAcrossActions() async throws {
        let sandbox = try Sandbox()
        // Fails with 9 if another command holds the lock directory at the same time.
        let script = "mkdir lock || exit 9; sleep 0.2; rmdir lock"
        let plugin = try ShellPlugin(
            section: ConfigValue.parse("max_concurrent: 1", spec: ShellPlugin.sectionSpec!, path: "shell"),
            context: PluginContext(stateDirectory: sandbox.path))
        let options = try ConfigValue.parse("{script: '\(script)', cwd: \(sandbox.path)}", spec: ShellPlugin.actionSpec.adding(DeliveryPolicy.options))
        let actions = try (0..<3).map { _ in try plugin.makeAction(options, route: "test") }
        let failures = await withTaskGroup(of: ActionError?.self) { group in
            for action in actions { group.addTask { await failure(of: action, Delivery(event: tagEvent(), route: "test")) } }
            return await group.reduce(into: [ActionError]()) { if let error = $1 { $0.append(error) } }
        }
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test(.timeLimit(.minutes(1))) func aCommandWaitingForASlotAtShutdownIsRetriedLaterNotRun() async throws {
        let sandbox = try Sandbox()
        let plugin = try ShellPlugin(
            section: ConfigValue.parse("max_concurrent: 1", spec: ShellPlugin.sectionSpec!, path: "shell"),
            context: PluginContext(stateDirectory: sandbox.path))
        let busy = try plugin.makeAction(ConfigValue.parse("{script: 'touch busy; exec sleep 300', cwd: \(sandbox.path)}", spec: ShellPlugin.actionSpec.adding(DeliveryPolicy.options)), route: "test")
        let waiting = try plugin.makeAction(ConfigValue.parse("{script: 'touch ran', cwd: \(sandbox.path)}", spec: ShellPlugin.actionSpec.adding(DeliveryPolicy.options)), route: "test")
        let holder = Task { await failure(of: busy, Delivery(event: tagEvent(), route: "test")) }
        defer { holder.cancel() }
        #expect(await eventually { sandbox.exists("busy") })
        let waiter = Task { await failure(of: waiting, Delivery(event: tagEvent(), route: "test")) }
        waiter.cancel()
        let error = try #require(await waiter.value)
        #expect(error.isRetryable, "a command that never ran must be delivered again (spooled), not failed: \(error)")
        #expect(error.description.contains("shutting down"))
        #expect(!sandbox.exists("ran"))
    }

    @Test func configNeedsExactlyOneOfCommandAndScript() throws {
        #expect(throws: ConfigErrors.self) { try makeAction(ShellPlugin.self, "{command: [true], script: 'true'}") }
        #expect(throws: ConfigErrors.self) { try makeAction(ShellPlugin.self, "{timeout: 1s}") }
        #expect(throws: ConfigErrors.self) { try makeAction(ShellPlugin.self, "{command: []}") }
        let problems = #expect(throws: ConfigErrors.self) { try makeAction(ShellPlugin.self, "{command: [true], timout: 1s}") }
        #expect(problems?.description.contains("did you mean 'timeout'") == true)
        let directory = #expect(throws: ConfigErrors.self) { try makeAction(ShellPlugin.self, "{command: [true], cwd: /no/such/dir}") }
        #expect(directory?.description.contains("routes[0].actions[0].shell.cwd: cannot run in '/no/such/dir': No such file or directory") == true)
    }
}

/// True once `pid` is gone or a zombie waiting for whoever adopted it.
func isGone(_ pid: pid_t) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
    guard let close = stat.lastIndex(of: ")") else { return true }
    return stat[close...].dropFirst(2).first == "Z"
}

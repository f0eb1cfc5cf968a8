import DaemonControl
import DaemonTesting
import Foundation
import OrderedJSON
import TagRouterDaemon
import Testing

/// The daemon library's start and its control socket, in process: what fails before anything runs
/// (each a `DaemonError` the command line maps to its exit status), and a reload asked on the
/// control socket going through the daemon's one reload.
@Suite struct DaemonStartTests {
    @Test func aBadConfigFailsTheStartWithEveryProblem() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let file = try scratch.write("bad.yaml", "readers: [{name: a, cooldown: soon}]\nroutes: [{actions: [{log: \"{{qqq}}\"}]}]\n")
        let error = try #require(throws: DaemonError.self) { _ = try Daemon(configuration: DaemonOptions(config: try ConfigFile(explicit: file))) }
        guard case .config(let problems, let name) = error else { Issue.record("not a config error: \(error)"); return }
        #expect(name == file)
        #expect(problems.lines().contains { $0.hasSuffix("bad.yaml:1:31: readers[0].cooldown: expected a duration such as 500ms, 5s, 2m or 1h, got \"soon\"") })
        #expect(problems.lines().contains { $0.contains("bad.yaml:2:28: routes[0].actions[0].log.template: template: unknown variable 'qqq'") })
        #expect(error.description == "\(file): the config has 2 problems")
    }

    @Test func anUnreadableEventsFileFailsTheStart() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        var options = DaemonOptions(config: ConfigFile(text: "routes: []\nstate_dir: \(scratch.path)/state\n", name: "t.yaml"))
        options.eventsFrom = scratch.path + "/missing.jsonl"
        let error = try #require(throws: DaemonError.self) { _ = try Daemon(configuration: options) }
        guard case .usage(let message) = error else { Issue.record("not a usage error: \(error)"); return }
        #expect(message == "cannot read events from '\(scratch.path)/missing.jsonl': No such file or directory")
    }

    /// A control path the user named that cannot be used stops the start; the standard one only goes without.
    @Test func aNamedControlPathThatCannotBeUsedFailsTheStart() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let blocker = try scratch.write("not-a-folder", "")
        var options = DaemonOptions(config: ConfigFile(text: "routes: []\nstate_dir: \(scratch.path)/state\n", name: "t.yaml"))
        options.eventsFrom = "/dev/null"
        options.control = (blocker + "/control.sock", true)
        let error = try #require(throws: DaemonError.self) { _ = try Daemon(configuration: options) }
        guard case .runtime = error else { Issue.record("not a runtime error: \(error)"); return }
        options.control = (blocker + "/control.sock", false)
        #expect(throws: Never.self) { _ = try Daemon(configuration: options) }
    }

    @Test func aReloadAskedOnTheControlSocketRunsTheNewConfig() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let file = try scratch.write("tagrouter.yaml", "routes: [{name: a, actions: [{log: \"A {{tag.uid}}\"}]}]\nstate_dir: \(scratch.path)/state\n")
        let control = scratch.path + "/run/control.sock"
        var options = DaemonOptions(config: try ConfigFile(explicit: file))
        options.control = (control, true)
        let daemon = try TestDaemon(options)
        try await daemon.send(arrival(uid: "01"))
        #expect(try await daemon.output(count: 1) == ["A 01"])
        var client = try ControlClient(path: control, name: "test")
        defer { client.close() }
        #expect(client.hello["config"]?.stringValue == file)

        _ = try scratch.write("tagrouter.yaml", "routes: [{name: b, actions: [{lgo: {}}]}]\n")
        let rejected = try client.request(JSONObject(["command": "reload"]))
        #expect(rejected["ok"] == false)
        guard case .array(let problems)? = rejected["problems"] else { Issue.record("no problems in \(rejected)"); return }
        #expect(problems.contains { $0.stringValue?.contains("unknown action 'lgo' (did you mean 'log'?)") == true }, "\(problems)")

        _ = try scratch.write("tagrouter.yaml", "routes: [{name: b, actions: [{log: \"B {{tag.uid}}\"}]}]\nstate_dir: \(scratch.path)/state\n")
        let reloaded = try client.request(JSONObject(["command": "reload"]))
        #expect(reloaded["reloaded"]?["routes"] == 1, "\(reloaded)")
        try await daemon.send(arrival(uid: "02"))
        #expect(try await daemon.output(count: 2) == ["A 01", "B 02"])
        try await daemon.stop()
    }
}

import Foundation
import OrderedJSON
import Testing
import TestSupport

/// `tagrouter run` as a real process, fed events on stdin: signals, exit statuses, the config search,
/// the binary's stdout and stderr. Routing and reloads are tested in process (`DaemonRoutingTests`).
@Suite struct RunCommandTests {
    static let config = """
        routes:
          - name: music
            match: { uri: "spotify:*" }
            actions:
              - log: "music {{uri}} on {{reader}}"
            continue: true
          - name: badge
            match: { uid: "04:A2:24:B2" }
            actions:
              - log: "badge {{tag.uid | upper}}"
          - name: other
            actions: [log]
        """

    /// What the log says of a SIGHUP with a broken file: the problem at its line:col, and the old config runs on
    /// (the reload itself is tested in process, `DaemonRoutingTests`).
    @Test func aSighupWithABadConfigLogsTheProblemAndKeepsRouting() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let file = try scratch.write("tagrouter.yaml", "routes: [{name: a, actions: [{log: \"A {{tag.uid}}\"}]}]\nstate_dir: \(scratch.path)/state\n")
        let daemon = try TagrouterProcess(["run", "--config", file, "--events-from", "-", "--log-format", "json"], directory: scratch.path)
        defer { daemon.stop() }
        daemon.send(arrival(uid: "01"))
        #expect(try await daemon.stdout(count: 1) == ["A 01"])
        _ = try scratch.write("tagrouter.yaml", "routes: [{name: b, actions: [{lgo: {}}]}]\n")
        daemon.signal(SIGHUP)
        let rejected = try await daemon.stderr(containing: "reload rejected")
        #expect(rejected.contains("tagrouter.yaml:1:30: routes[0].actions[0]: unknown action 'lgo' (did you mean 'log'?)"))
        daemon.send(arrival(uid: "02"))
        #expect(try await daemon.stdout(count: 2) == ["A 01", "A 02"])
        daemon.signal(SIGTERM)
        #expect(try await daemon.exitStatus() == 0)
    }

    /// A SIGHUP that arrives while the daemon is still starting (here: reading its
    /// config from a FIFO the test holds) waits for the handler instead of killing
    /// the daemon, and is answered with a reload once the daemon runs.
    @Test func aSighupWhileStartingIsAReloadNotADeath() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let fifo = scratch.path + "/tagrouter.yaml"
        #expect(mkfifo(fifo, 0o600) == 0)
        let config = "routes: [{name: a, actions: [{log: \"A {{tag.uid}}\"}]}]\nstate_dir: \(scratch.path)/state\n"
        let daemon = try TagrouterProcess(["run", "--config", fifo, "--events-from", "-", "--log-format", "json"], directory: scratch.path)
        defer { daemon.stop() }
        // Once the FIFO has a reader, the daemon is past its first instructions and reading its config.
        try await feed(fifo, config)
        daemon.signal(SIGHUP)
        daemon.send(arrival(uid: "01"))
        #expect(try await daemon.stdout(count: 1) == ["A 01"], "the daemon died of the SIGHUP sent while it started")
        // The reload that SIGHUP asked for reads the FIFO again.
        try await feed(fifo, config.replacingOccurrences(of: "A {{", with: "B {{"))
        try await daemon.stderr(containing: "config reloaded")
        daemon.send(arrival(uid: "02"))
        #expect(try await daemon.stdout(count: 2) == ["A 01", "B 02"])
        daemon.signal(SIGTERM)
        #expect(try await daemon.exitStatus() == 0)
    }

    /// Waits (polling, never blocking a thread) until `fifo` has a reader, then writes `text` and closes it.
    private func feed(_ fifo: String, _ text: String) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        var descriptor: Int32 = -1
        while descriptor < 0 {
            descriptor = open(fifo, O_WRONLY | O_NONBLOCK)
            guard descriptor < 0 else { break }
            #expect(errno == ENXIO, "opening the FIFO: \(String(cString: strerror(errno)))")
            guard ContinuousClock.now < deadline else { throw DaemonTimeout(waitingFor: "the daemon to open \(fifo)", stderr: "") }
            try await Task.sleep(for: .milliseconds(2))
        }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        #expect(write(descriptor, bytes, bytes.count) == bytes.count)
    }

    @Test func sigtermDrainsEventsInFlightAndExitsZero() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let file = try scratch.write("tagrouter.yaml", """
            state_dir: \(scratch.path)/state
            routes:
              - name: all
                actions:
                  - log: { template: "{{tag.uid}}", queue: 100000 }
            """)
        let daemon = try TagrouterProcess(["run", "--config", file, "--events-from", "-", "--log-format", "json"], directory: scratch.path)
        defer { daemon.stop() }
        daemon.send(arrival(uid: "00"))
        _ = try await daemon.stdout(count: 1)
        for index in 1...3000 { daemon.send(arrival(uid: String(format: "%06x", index))) }
        daemon.signal(SIGTERM)
        // It failed once in a loaded make test without a "stopped" line; say how it ended.
        let status = try await daemon.exitStatus()
        #expect(status == 0, "status \(status); the end of stderr: \(daemon.stderr.suffix(5).joined(separator: "\n"))")
        let stopped = try JSONValue.parse(try #require(daemon.stderr.last { $0.contains("\"stopped\"") }))
        let delivered = try #require(stopped["actions"]?["all.0.log"]?["delivered"])
        // Every event the router accepted before the signal was delivered, in order.
        #expect(.int(Int64(daemon.stdout.count)) == delivered)
        #expect(daemon.stdout == (0..<daemon.stdout.count).map { $0 == 0 ? "00" : String(format: "%06x", $0) })
        #expect(stopped["actions"]?["all.0.log"]?["dropped"] == 0)
    }

    @Test func usesTheEmbeddedDefaultWhenNoFileIsFound() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let daemon = try TagrouterProcess(["run", "--events-from", "-", "--state-dir", scratch.path + "/state"], directory: scratch.path, environment: ["HOME": scratch.path])
        defer { daemon.stop() }
        daemon.send(arrival(uid: "04a224b2"))
        daemon.closeInput()
        #expect(try await daemon.exitStatus() == 0)
        let line = try JSONValue.parse(try #require(daemon.stdout.first))
        #expect(line["route"] == "log-everything")
        #expect(line["event"]?["tag"]?["uid"] == "04a224b2")
        #expect(daemon.stderr.contains { $0.contains("embedded default") })
    }

    @Test func findsTagrouterYamlInTheWorkingDirectory() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        _ = try scratch.write("tagrouter.yaml", "routes: [{name: here, actions: [{log: \"here {{reader}}\"}]}]\n")
        let daemon = try TagrouterProcess(["run", "--events-from", "-", "--state-dir", scratch.path + "/state"], directory: scratch.path, environment: ["HOME": scratch.path])
        defer { daemon.stop() }
        daemon.send(arrival(uid: "01"))
        daemon.closeInput()
        #expect(try await daemon.exitStatus() == 0)
        #expect(daemon.stdout == ["here door"])
    }

    /// `status` names the config by its absolute path when the daemon was started with a relative `--config`:
    /// run from another folder, it names a file that exists.
    @Test func statusNamesARelativeConfigByItsAbsolutePath() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let file = try scratch.write("tagrouter.yaml", "readers: []\nroutes: [{name: a, actions: [log]}]\nstate_dir: \(scratch.path)/state\n")
        let control = scratch.path + "/control.sock"
        let daemon = try TagrouterProcess(
            ["run", "--config", "./tagrouter.yaml", "--events-from", "-", "--control", control, "--log-format", "json"], directory: scratch.path)
        defer { daemon.stop() }
        try await daemon.stderr(containing: "router started")
        let status = try await ToolRun(BuiltProducts.tagrouter.path, ["status", "--json", "--control", control], directory: "/")
        #expect(status.status == 0, "\(status.stderr)")
        #expect(try JSONValue.parse(status.stdout)["config"]?["file"] == .string(file))
        let text = try await ToolRun(BuiltProducts.tagrouter.path, ["status", "--control", control], directory: "/")
        #expect(text.stdout.contains("config: \(file) (loaded "), "\(text.stdout)")
        daemon.closeInput()
        #expect(try await daemon.exitStatus() == 0)
    }

    /// A config whose only warning is an unrouted tag, and the warning as `check-config` prints it.
    private static func warnedConfig(_ scratch: Scratch) throws -> (file: String, warning: String) {
        let file = try scratch.write("warned.yaml", """
            state_dir: \(scratch.path)/state
            tags:
              - { name: used, uid: "0411" }
              - { name: spare, uid: "0499" }
            routes:
              - name: all
                match: { tag: used }
                actions: [log]
            """)
        return (file, "\(file):4:5: warning: tags: no route matches tag 'spare'")
    }

    /// The config's warnings come first, before anything starts (here the control socket, which `run` reports ready).
    @Test func configWarningsArePrintedBeforeAnythingStarts() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let (file, warning) = try Self.warnedConfig(scratch)
        let daemon = try TagrouterProcess(
            ["run", "--config", file, "--events-from", "-", "--control", scratch.path + "/control.sock", "--log-format", "json"], directory: scratch.path)
        defer { daemon.stop() }
        daemon.closeInput()
        #expect(try await daemon.exitStatus() == 0)
        let warned = daemon.stderr.firstIndex { $0.hasPrefix(warning) }
        let ready = daemon.stderr.firstIndex { $0.contains("control socket ready") }
        #expect(warned != nil && ready != nil && warned! < ready!, "\(daemon.stderr.joined(separator: "\n"))")
    }

    /// An `--events-from` that cannot be read stops the start as a bad argument (64), naming the file and why,
    /// after the config's warnings.
    @Test(arguments: ["missing.jsonl", "folder"])
    func anUnreadableEventsFileStopsTheStartAfterTheWarnings(name: String) async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        try FileManager.default.createDirectory(atPath: scratch.path + "/folder", withIntermediateDirectories: true)
        let (file, warning) = try Self.warnedConfig(scratch)
        let daemon = try TagrouterProcess(["run", "--config", file, "--events-from", name], directory: scratch.path)
        defer { daemon.stop() }
        #expect(try await daemon.exitStatus() == 64)
        let reason = name == "folder" ? "Is a directory" : "No such file or directory"
        #expect(daemon.stderr.first?.hasPrefix(warning) == true, "\(daemon.stderr.joined(separator: "\n"))")
        #expect(daemon.stderr.contains("error: cannot read events from '\(name)': \(reason)"), "\(daemon.stderr.joined(separator: "\n"))")
    }

    @Test func aBadConfigStopsTheStartWithEveryProblem() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let file = try scratch.write("bad.yaml", "readers: [{name: a, cooldown: soon}]\nroutes: [{actions: [{log: \"{{qqq}}\"}]}]\n")
        let daemon = try TagrouterProcess(["run", "--config", file, "--events-from", "-"], directory: scratch.path)
        defer { daemon.stop() }
        #expect(try await daemon.exitStatus() == 65)
        #expect(daemon.stderr.contains { $0.hasSuffix("bad.yaml:1:31: readers[0].cooldown: expected a duration such as 500ms, 5s, 2m or 1h, got \"soon\"") })
        #expect(daemon.stderr.contains { $0.contains("bad.yaml:2:28: routes[0].actions[0].log.template: template: unknown variable 'qqq'; variables are dwell_ms, event") })
        #expect(daemon.stderr.contains("error: \(file): the config has 2 problems"))
    }
}

/// A stdout that refuses writes fails `log` deliveries; the daemon carries on.
@Suite struct UnwritableStdoutTests {
    @Test func logToAFullDeviceIsCountedAsFailed() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let config = try scratch.write("c.yaml", "routes: [{name: r, actions: [log]}]\nstate_dir: \(scratch.path)/state\n")
        let events = try scratch.write("events.jsonl", arrival(uid: "01").serialized() + "\n" + arrival(uid: "02").serialized() + "\n")
        let process = Process()
        process.executableURL = BuiltProducts.tagrouter
        process.arguments = ["run", "--config", config, "--events-from", events, "--log-format", "json"]
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/full")
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let stderr = LineCollector(errors.fileHandleForReading)
        let deadline = ContinuousClock.now + .seconds(20)
        while !stderr.hasEnded || process.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(!process.isRunning)
        #expect(process.terminationStatus == 0)
        let stopped = try JSONValue.parse(try #require(stderr.lines.last { $0.contains("\"stopped\"") }))
        #expect(stopped["actions"]?["r.0.log"]?["failed"] == 2)
        // The same failure twice within a minute is one line.
        #expect(stderr.lines.filter { $0.contains("cannot write to stdout") }.count == 1)
    }
}

/// `inputs:` entries run beside the readers, each through its source plugin.
@Suite struct InputsTests {
    @Test func anEventsInputFeedsTheRoutesBesideTheReaders() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        _ = try scratch.write("replay.jsonl", [arrival(uid: "0a"), arrival(uid: "0b", reader: "desk")].map { $0.serialized() + "\n" }.joined())
        let file = try scratch.write("tagrouter.yaml", """
            state_dir: \(scratch.path)/state
            readers: []
            inputs:
              - events: replay.jsonl
            routes: [{name: all, actions: [{log: "{{tag.uid}} on {{reader}}"}]}]
            """)
        let daemon = try TagrouterProcess(["run", "--config", file, "--log-format", "json"], directory: "/")
        defer { daemon.stop() }
        #expect(try await daemon.stdout(count: 2) == ["0a on door", "0b on desk"])
        try await daemon.stderr(containing: "end of events")
        daemon.signal(SIGTERM)
        #expect(try await daemon.exitStatus() == 0)
    }

    @Test func checkConfigNamesUnknownInputsAndMissingFiles() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let file = try scratch.write("tagrouter.yaml", """
            inputs:
              - evnets: a.jsonl
              - events: { path: missing.jsonl }
              - events: { path: a.jsonl, size: 3 }
            """)
        let daemon = try TagrouterProcess(["check-config", file], directory: scratch.path)
        defer { daemon.stop() }
        #expect(try await daemon.exitStatus() == 65)
        let errors = daemon.stderr.joined(separator: "\n")
        #expect(errors.contains("tagrouter.yaml:2:5: inputs[0]: unknown input 'evnets' (did you mean 'events'?)"))
        #expect(errors.contains("tagrouter.yaml:3:21: inputs[1].events.path: cannot read events from '\(scratch.path)/missing.jsonl'"))
        #expect(errors.contains("inputs[2].events: unknown key 'size'"))
    }
}

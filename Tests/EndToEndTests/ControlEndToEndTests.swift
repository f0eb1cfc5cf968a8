import Foundation
import Harness
import OrderedJSON
import TestSupport
import Testing

/// The running daemon seen and steered as a user does: `tagrouter simulate`,
/// `tagrouter run --control S`, and the `status`, `events` and `reload`
/// commands against it, after known taps.
@Suite(.timeLimit(.minutes(3)))
struct ControlEndToEndTests {
    static let key = #"{"op":"place","type":"ntag215","uid":"04a224b2c35e80","records":[{"uri":"https://www.home-assistant.io/tag/front-door-key"}]}"#
    static let stranger = #"{"op":"place","type":"ntag213","uid":"04000000000001","records":[{"text":"hello","lang":"en"}]}"#

    func config(_ setup: Setup, extraRoute: String = "") -> String {
        """
        state_dir: \(setup.directory)/state
        readers:
          - { name: front-door, device: "pn532_uart:\(setup.link)", cooldown: 0s, exit_delay: 200ms }
        tags:
          - { name: door-key, uid: "04a224b2c35e80" }
        routes:
          - name: key
            match: { event: tag.arrived, uid: "04a224b2c35e80" }
            actions:
              - log: "key {{tag.uid}}"
          - name: removals
            match: { event: tag.removed }
            actions:
              - log: "removed {{tag.uid}}"
        \(extraRoute)
        """
    }

    var controlPath: (Setup) -> String { { $0.directory + "/control.sock" } }

    /// `tagrouter <arguments> --control S`, run to its end.
    func tool(_ setup: Setup, _ arguments: [String]) async throws -> ToolRun {
        try await ToolRun(BuiltProducts.tagrouter.path, arguments + ["--control", controlPath(setup)], directory: setup.directory)
    }

    /// The simulator, the daemon on `config`, and `tagrouter events` following it.
    func watchedDaemon(_ setup: Setup) async throws -> (simulator: RunningTool, daemon: RunningTool, events: RunningTool) {
        let simulator = try await setup.simulator()
        let daemon = try setup.daemon(config: config(setup), control: controlPath(setup))
        try await daemon.waitForStderr(containing: "control socket ready")
        let events = try RunningTool(BuiltProducts.tagrouter.path, ["events", "--control", controlPath(setup)], directory: setup.directory)
        try await events.waitForStderr(containing: "following the events of tagrouter")
        return (simulator, daemon, events)
    }

    @Test func statusEventsAndReloadAnswerFromTheRunningDaemon() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let (simulator, daemon, events) = try await watchedDaemon(setup)
        try await setup.request(Self.key)
        try await events.waitForStdout(containing: "front-door tag.arrived 04a224b2c35e80 ntag215 'door-key' uri=https://www.home-assistant.io/tag/front-door-key → key")
        try await events.waitForStdout(containing: "    key.0.log delivered after")
        try await setup.request(#"{"op":"remove"}"#)
        try await events.waitForStdout(containing: "tag.removed 04a224b2c35e80 ntag215 'door-key' → removals")
        try await setup.request(Self.stranger)
        try await events.waitForStdout(containing: "tag.arrived 04000000000001 ntag213 text=\"hello\" → no route matched")
        try await events.waitForStdout(containing: "    route key: uid: ")
        try await setup.request(#"{"op":"remove"}"#)
        try await events.waitForStdout(containing: "tag.removed 04000000000001")

        let status = try await tool(setup, ["status"])
        #expect(status.status == 0)
        #expect(status.stdout.contains("— healthy"))
        #expect(status.stdout.contains("front-door: connected since "))
        #expect(status.stdout.contains("2 tags, last 04000000000001 (ntag213)"))
        #expect(status.stdout.contains("key: 1 match\n"))
        #expect(status.stdout.contains("removals: 2 matches"))
        #expect(status.stdout.contains("key.0.log: delivered 1, failed 0"))
        // How fast the reader is, under its line: place → tag.arrived, and its arrivals → each action's outcome.
        #expect(status.stdout.contains("\n    place → tag.arrived: p50 "), "\(status.stdout)")
        #expect(status.stdout.contains("\n    tag.arrived → key.0.log: p50 "), "\(status.stdout)")
        let json = try await tool(setup, ["status", "--json"])
        let parsed = try JSONValue.parse(json.stdout)
        #expect(parsed.value(atPath: "readers.0.tags_seen") == 2)
        #expect(parsed.value(atPath: "readers.0.state") == "connected")
        #expect(parsed.value(atPath: "actions.0.delivered") == 1)
        #expect(parsed.value(atPath: "actions.0.latency_ms.p50") != nil)
        #expect(parsed.value(atPath: "readers.0.arrival_ms.p50") != nil)
        #expect(parsed.value(atPath: "readers.0.arrival_ms.p99") != nil)
        #expect(parsed.value(atPath: "readers.0.outcome_ms")?["key.0.log"]?["p50"] != nil)

        // A typo is shown to the person who reloads, at file:line:col; a good change is summed up.
        try config(setup, extraRoute: "  - name: typo\n    mach: {}\n    actions: [{ log: x }]").write(toFile: setup.directory + "/tagrouter.yaml", atomically: true, encoding: .utf8)
        let rejected = try await tool(setup, ["reload"])
        #expect(rejected.status == 65)
        #expect(rejected.stderr.contains("tagrouter.yaml:16:5: routes[2]: unknown key 'mach'"))
        // Until a reload succeeds, status says the file on disk would not start (the next restart would fail).
        let stale = try await tool(setup, ["status"])
        #expect(stale.status == 2, "\(stale.stdout)")
        #expect(stale.stdout.contains("config on disk rejected at "), "\(stale.stdout)")
        #expect(stale.stdout.contains("tagrouter.yaml:16:5; running the previous one"), "\(stale.stdout)")
        let staleJSON = try JSONValue.parse(try await tool(setup, ["status", "--json"]).stdout)
        #expect(staleJSON.value(atPath: "config.rejected.at")?.stringValue?.hasSuffix("tagrouter.yaml:16:5") == true, "\(staleJSON)")
        #expect(staleJSON.value(atPath: "config.rejected.problem")?.stringValue?.contains("unknown key 'mach'") == true, "\(staleJSON)")
        // A reload that adds `metrics:` says the listener and file wait for a restart (it used to print "reloaded" only).
        try config(setup, extraRoute: "  - name: all\n    actions: [{ log: x }]\nmetrics: { file: \(setup.directory)/tagrouter.prom }")
            .write(toFile: setup.directory + "/tagrouter.yaml", atomically: true, encoding: .utf8)
        let reloaded = try await tool(setup, ["reload"])
        #expect(reloaded.status == 0)
        #expect(reloaded.stdout == "reloaded: 1 reader, 3 routes\nmetrics: changed; the new settings take effect at the next restart (systemctl restart tagrouter)\n")
        let fresh = try await tool(setup, ["status"])
        #expect(fresh.status == 0 && !fresh.stdout.contains("rejected"), "\(fresh.stdout)")

        // The reader going away makes the daemon degraded: exit 2 and why.
        simulator.signal(SIGTERM)
        _ = try await simulator.termination()
        try await events.waitForStdout(containing: "front-door reader.disconnected")
        let degraded = try await tool(setup, ["status"])
        #expect(degraded.status == 2)
        #expect(degraded.stdout.contains("reader front-door is disconnected"))

        daemon.signal(SIGTERM)
        #expect(try await daemon.termination().status == .exited(0))
        #expect(try await events.termination().status == .exited(1))
        #expect(!FileManager.default.fileExists(atPath: controlPath(setup)))
    }

    @Test func aReaderWhoseSettingsChangeOnReloadDoesNotReportTheTagLyingOnItAgain() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let (simulator, daemon, events) = try await watchedDaemon(setup)
        try await setup.request(Self.key)
        try await events.waitForStdout(containing: "tag.arrived 04a224b2c35e80")
        let beforeReload = events.stdout.count

        try config(setup).replacingOccurrences(of: "cooldown: 0s", with: "cooldown: 2s")
            .write(toFile: setup.directory + "/tagrouter.yaml", atomically: true, encoding: .utf8)
        #expect(try await tool(setup, ["reload"]).status == 0)
        try await daemon.waitForStderr(containing: "reader started with the new config")
        // The restarted reader connects and sees the key lying there; lifting it is the first thing it reports.
        try await events.waitForStdout(containing: "front-door reader.connected", after: beforeReload)
        try await setup.request(#"{"op":"remove"}"#)
        try await events.waitForStdout(containing: "tag.removed 04a224b2c35e80", after: beforeReload)
        let afterReload = events.stdout.dropFirst(beforeReload).map(\.text)
        #expect(!afterReload.contains { $0.contains("tag.arrived 04a224b2c35e80") }, "\(afterReload)")
        #expect(try await tool(setup, ["status", "--json"]).stdout.contains(#""tags_seen":1"#))

        daemon.signal(SIGTERM)
        #expect(try await daemon.termination().status == .exited(0))
        simulator.signal(SIGTERM)
        _ = try await simulator.termination()
    }

    @Test func withoutADaemonStatusSaysSoAndExits1() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let status = try await tool(setup, ["status"])
        #expect(status.status == 1)
        #expect(status.stderr.contains("no tagrouter daemon answers at \(controlPath(setup))"))
    }

    /// Needs root to connect as another user (`setpriv`); without root the
    /// uid/gid check is covered by `PeerPolicyTests` alone.
    @Test func aPeerOutsideTheDaemonsGroupIsRefusedAndLogged() async throws {
        guard getuid() == 0 else { return }
        let setup = try Setup()
        defer { setup.remove() }
        let daemon = try setup.daemon(config: "readers: []\nroutes: []\n", control: controlPath(setup))
        try await daemon.waitForStderr(containing: "control socket ready")
        #expect(try await tool(setup, ["status"]).status == 0)
        // Past the file mode (as a careless chmod would do), the daemon itself still says no.
        chmod(controlPath(setup), 0o666)
        let nobody = try await ToolRun(
            "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", try BuiltProducts.tagrouterForOtherUsers(in: setup.directory), "status", "--control", controlPath(setup)],
            directory: "/")
        #expect(nobody.status == 1)
        #expect(nobody.stderr.contains("refused: uid 65534"))
        try await daemon.waitForStderr(containing: "control connection refused")
        daemon.signal(SIGTERM)
        #expect(try await daemon.termination().status == .exited(0))
    }
}

import Foundation
import Harness
import Testing
import TestSupport

/// `tagrouter demo` as a new user runs it: the whole tour ends by itself, names
/// every scripted tag and what its route did, and leaves no process or file behind.
@Suite(.timeLimit(.minutes(2)))
struct DemoTests {
    /// The demo's daemon listens in the demo's own folder: a daemon that already answers where
    /// `tagrouter status` looks (here `$TAGROUTER_CONTROL`) is not taken for a rival, and the tour runs.
    /// (One tour for both: each takes 10 s of scripted pauses.)
    @Test func theTourShowsEveryTagAndWhatItsRouteDidThenCleansUpAlsoBesideADaemonAnsweringWhereStatusLooks() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let socket = setup.directory + "/other.sock"
        let config = setup.directory + "/other.yaml"
        try "state_dir: \(setup.directory)/state\nreaders: []\nroutes: []\n".write(toFile: config, atomically: true, encoding: .utf8)
        let other = try RunningTool(
            BuiltProducts.tagrouter.path, ["run", "--config", config, "--control", socket], environment: [:], directory: setup.directory)
        try await other.waitForStderr(containing: "control socket ready")
        let scratch = setup.directory + "/tmp"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: false)
        let tour = try await ToolRun(
            BuiltProducts.tagrouter.path, ["demo"], environment: ["TMPDIR": scratch, "TAGROUTER_CONTROL": socket], timeout: .seconds(45))
        #expect(tour.status == 0, "\(tour.stdout)\n\(tour.stderr)")
        let lines = tour.stdout.split(separator: "\n").map(String.init)
        for expected in [
            "● reader 'desk' connected",
            "▶ placed an NTAG215 (04a224b2c35e80) with https://example.com/a",
            "    route 'links' → shell: echo 'open https://example.com/a' → open https://example.com/a",
            "▶ placed an NTAG213 (04d1e2f3a4b5c6) with https://www.home-assistant.io/tag/front-door",
            "    route 'home-assistant' → shell: echo 'Home Assistant tag scanned: front-door' → Home Assistant tag scanned: front-door",
            "▶ placed an NTAG216 (04aa55aa55aa55) with the text “Water the plants”",
            "    route 'notes' → shell: echo 'note: Water the plants' → note: Water the plants",
            "    route 'everything-else' → log: the event as one JSON line on stdout",
        ] {
            #expect(lines.contains(expected), "missing: \(expected)\n\(tour.stdout)")
        }
        let badge = try #require(lines.first { $0.hasPrefix("▶ placed a MIFARE Classic 1K (a1b2c3d4)") }, "\(tour.stdout)")
        #expect(badge.contains("with no NDEF message"))
        // The held tag: lifted after about 3 s, as the reader measured it (not the demo's own clock).
        let held = try #require(lines.first { $0.hasPrefix("    route 'lifted' → shell: echo '04bb66bb66bb66 lifted after ") }, "\(tour.stdout)")
        let dwell = try #require(Int(held.split(separator: " ").dropLast().last ?? ""))
        #expect(dwell >= 2500 && dwell < 10_000, "\(held)")
        // Each event is told once, before what its actions did.
        #expect(lines.filter { $0.hasPrefix("▶ placed") }.count == 5)
        #expect(lines.filter { $0.hasPrefix("◀ lifted") }.count == 5)
        #expect(lines.contains { $0.hasPrefix("The daemon delivered 30 actions, 0 failed. Stopped the daemon (exit 0) and the simulator (exit 0)") },
                "\(tour.stdout)")
        #expect(DemoLeftovers.processes(mentioning: scratch).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch).isEmpty, "the demo's temporary folder is removed")
        // The closing hint is a command that works as printed (after `make demo` no `tagrouter` is on PATH).
        let next = try #require(lines.first { $0.hasPrefix("Next: `") }, "\(tour.stdout)")
        let command = next.dropFirst("Next: `".count).prefix { $0 != "`" }.split(separator: " ").map(String.init)
        let printed = try await ToolRun(command[0], Array(command.dropFirst()), environment: ["PATH": "/usr/bin:/bin"], timeout: .seconds(20))
        #expect(printed.status == 0 && printed.stdout.contains("routes:"), "`\(command.joined(separator: " "))`: \(printed.stderr)")
        other.signal(SIGTERM)  // kept running until the tour ended
    }

    @Test func ctrlCStopsTheTourAndItsChildren() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let tour = try RunningTool(BuiltProducts.tagrouter.path, ["demo"], environment: ["TMPDIR": setup.directory])
        try await tour.waitForStdout(containing: "▶ placed an NTAG215 (04a224b2c35e80)")
        let children = DemoLeftovers.processes(mentioning: setup.directory)
        #expect(children.count == 2, "the simulator and the daemon run: \(children)")
        tour.signal(SIGINT)
        let end = try await tour.termination(timeout: .seconds(15))
        #expect(end.status == .exited(1))
        // Read through the output streams, which may still be arriving after the exit.
        try await tour.waitForStderr(containing: "error: the demo was interrupted")
        try await tour.waitForStdout(containing: "Stopped the daemon (exit 0) and the simulator (exit 0)")
        #expect(DemoLeftovers.processes(mentioning: setup.directory).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: setup.directory).isEmpty)
    }
}

/// Processes still alive (not zombies) whose command line mentions a path.
enum DemoLeftovers {
    static func processes(mentioning path: String) -> [String] {
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.filter { $0.allSatisfy(\.isNumber) } ?? []
        return pids.compactMap { pid -> String? in
            guard let raw = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"),
                  let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")"), stat[close...].dropFirst(2).first != "Z"
            else { return nil }
            let command = String(decoding: raw.map { $0 == 0 ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
            return command.contains(path) ? "\(pid): \(command)" : nil
        }
    }
}

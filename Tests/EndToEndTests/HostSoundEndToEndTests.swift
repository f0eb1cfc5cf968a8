import Foundation
import Harness
import OrderedJSON
import SystemKit
import TestSupport
import Testing

/// `readers[].feedback.sound` on a libnfc reader (the PN532 simulator), with
/// the real `aplay` playing into ALSA's null device: each outcome starts the
/// player with its file, a player that hangs delays neither routing nor the
/// next sound, and a missing file stops `run` before it starts.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct HostSoundEndToEndTests {
    static let key = #"{"op":"place","type":"ntag215","uid":"04a224b2c35e80","records":[{"text":"key","lang":"en"}]}"#
    static let stranger = #"{"op":"place","type":"ntag213","uid":"04000000000001","records":[{"text":"hello","lang":"en"}]}"#
    static let broken = #"{"op":"place","type":"ntag213","uid":"04112233445566","records":[]}"#

    /// `sound` (YAML lines under `feedback.sound:`) for reader `door` on the simulator, and three routes: `key` delivers,
    /// `broken` fails, anything else matches nothing.
    static func config(_ setup: Setup, sound: String) -> String {
        """
        state_dir: \(setup.directory)/state
        readers:
          - name: door
            device: "pn532_uart:\(setup.link)"
            cooldown: 0s
            exit_delay: 0s
            feedback:
              sound:
        \(sound.split(separator: "\n").map { "            " + $0 }.joined(separator: "\n"))
        routes:
          - name: key
            match: { event: tag.arrived, uid: "04a224b2c35e80" }
            actions: [{ log: "key {{tag.uid}}" }]
          - name: broken
            match: { event: tag.arrived, uid: "04112233445566" }
            actions: [{ shell: { command: ["/bin/false"], retry: { attempts: 1 } } }]
          - name: removals
            match: { event: tag.removed }
            actions: [{ log: "removed {{tag.uid}}" }]
        """
    }

    /// A tenth of a second of silence as a WAV file (8 kHz, mono, 16 bit) at `path`.
    static func writeSilence(_ path: String) throws {
        func le(_ value: Int, _ bytes: Int) -> [UInt8] { (0..<bytes).map { UInt8((value >> (8 * $0)) & 0xff) } }
        let samples = 1600
        let header = Array("RIFF".utf8) + le(36 + samples, 4) + Array("WAVEfmt ".utf8) + le(16, 4) + le(1, 2) + le(1, 2) + le(8000, 4)
            + le(16000, 4) + le(2, 2) + le(16, 2) + Array("data".utf8) + le(samples, 4)
        try Data(header + [UInt8](repeating: 0, count: samples)).write(to: URL(fileURLWithPath: path))
    }

    /// `tagrouter run` on `config` with debug logs in JSON; `path` goes first on its PATH.
    static func daemon(_ setup: Setup, config: String, path: String? = nil) throws -> RunningTool {
        let file = setup.directory + "/tagrouter.yaml"
        try config.write(toFile: file, atomically: true, encoding: .utf8)
        var environment = ["LIBNFC_AUTO_SCAN": "false", "LIBNFC_INTRUSIVE_SCAN": "false"]
        if let path { environment["PATH"] = path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? ExecutableSearch.defaultPath) }
        return try RunningTool(
            BuiltProducts.tagrouter.path,
            ["run", "--config", file, "--log-format", "json", "--log-level", "debug", "--control", setup.directory + "/control.sock"],
            environment: environment, directory: setup.directory)
    }

    /// The log entries with message `message` so far, as JSON objects.
    static func entries(_ daemon: RunningTool, _ message: String) -> [JSONValue] {
        daemon.stderr.compactMap { line in
            guard let entry = try? JSONValue.parse(line.text), entry["msg"]?.stringValue == message else { return nil }
            return entry
        }
    }

    /// Waits for a log entry `message` whose `moment` is `moment`, and returns it.
    static func waitForEntry(_ daemon: RunningTool, _ message: String, moment: String) async throws -> JSONValue {
        let found = await eventually { entries(daemon, message).contains { $0["moment"]?.stringValue == moment } }
        try #require(found, "no '\(message)' for \(moment); log: \(daemon.stderr.suffix(12).map(\.text))")
        return try #require(entries(daemon, message).last { $0["moment"]?.stringValue == moment })
    }

    /// Stops the daemon, then the simulator, each with `SIGTERM`, and waits for both to end.
    static func stop(_ daemon: RunningTool, _ simulator: RunningTool) async throws {
        for tool in [daemon, simulator] {
            tool.signal(SIGTERM)
            _ = try await tool.termination()
        }
    }

    /// The `pid` of a log entry.
    static func pid(_ entry: JSONValue) -> pid_t? {
        if case .int(let pid)? = entry["pid"] { return pid_t(pid) }
        return nil
    }

    @Test func eachOutcomePlaysItsOwnFileThroughAplay() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        for name in ["ok", "nope", "fail"] { try Self.writeSilence(setup.directory + "/\(name).wav") }
        let simulator = try await setup.simulator()
        let daemon = try Self.daemon(setup, config: Self.config(setup, sound: """
            player: aplay
            device: "null"
            success: ok.wav
            no_match: nope.wav
            failure: fail.wav
            """))
        try await daemon.waitForStderr(containing: "reader.connected")
        for (tag, moment, file) in [(Self.key, "success", "ok"), (Self.stranger, "no_match", "nope"), (Self.broken, "failure", "fail")] {
            try await setup.request(tag)
            let started = try await Self.waitForEntry(daemon, "sound started", moment: moment)
            let played = try await Self.waitForEntry(daemon, "sound played", moment: moment)
            #expect(started["file"]?.stringValue == setup.directory + "/\(file).wav")
            #expect(started["player"]?.stringValue == "/usr/bin/aplay")
            // The process the daemon started is the one that ended well: aplay exits 1 when it cannot open or play the file.
            #expect(Self.pid(played) != nil && Self.pid(played) == Self.pid(started))
            #expect(played["status"]?.stringValue == "exit 0")
            let before = daemon.stdout.count
            try await setup.request(#"{"op":"remove"}"#)
            try await daemon.waitForStdout(containing: "removed", after: before)
        }
        #expect(Self.entries(daemon, "sound player failed").isEmpty)
        try await Self.stop(daemon, simulator)
    }

    @Test func aPlayerThatHangsBlocksNeitherRoutingNorTheNextSound() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        for name in ["click", "ok"] { try Self.writeSilence(setup.directory + "/\(name).wav") }
        // A player that never finishes by itself: it notes its start (its own pid and arguments) and its stop.
        // The trap comes first: a player stopped before it could note its start notes only its stop
        // (it failed once under load when the start was noted and the stop was not).
        let bin = setup.directory + "/bin"
        let record = setup.directory + "/player.log"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try """
            #!/bin/sh
            trap 'echo "stopped $$" >> \(record); exit 143' TERM
            echo "started $$ $*" >> \(record)
            sleep 120 & wait $!
            """.write(toFile: bin + "/aplay", atomically: true, encoding: .utf8)
        chmod(bin + "/aplay", 0o755)
        let simulator = try await setup.simulator()
        let daemon = try Self.daemon(setup, config: Self.config(setup, sound: """
            player: aplay
            timeout: 1m
            arrival: click.wav
            success: ok.wav
            """), path: bin)
        try await daemon.waitForStderr(containing: "reader.connected")
        func lines() -> [String] { ((try? String(contentsOfFile: record, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init) }

        try await setup.request(Self.key)
        try await daemon.waitForStdout(containing: "key 04a224b2c35e80")
        let first = try await Self.waitForEntry(daemon, "sound started", moment: "success")
        let firstPID = try #require(Self.pid(first))
        // The tag leaves while that player still plays: the removal is routed all the same.
        try await setup.request(#"{"op":"remove"}"#)
        try await daemon.waitForStdout(containing: "removed 04a224b2c35e80")
        #expect(kill(firstPID, 0) == 0 && !lines().contains("stopped \(firstPID)"), "\(lines())")
        // The tag comes back: its sounds take the playing one's place; it is stopped, not left to play beside them.
        try await setup.request(Self.key)
        let cut = await eventually { Self.entries(daemon, "sound cut short by a newer moment").contains { Self.pid($0) == firstPID } }
        #expect(cut, "\(daemon.stderr.suffix(12).map(\.text))")
        let secondSuccess = await eventually { Self.entries(daemon, "sound started").filter { $0["moment"]?.stringValue == "success" }.count == 2 }
        #expect(secondSuccess)

        try await Self.stop(daemon, simulator)
        // At most one played at a time: each player but the first started after the one before it had stopped,
        // and none outlived the daemon. (A player replaced before it noted its start notes only its stop.)
        let record_ = lines()
        var playing: String?
        for line in record_ {
            let words = line.split(separator: " ").map(String.init)
            if words[0] == "started" {
                #expect(playing == nil, "player \(words[1]) started while \(playing ?? "") played: \(record_)")
                playing = words[1]
                #expect(words.last == setup.directory + "/click.wav" || words.last == setup.directory + "/ok.wav")
            } else if words[1] == playing {
                playing = nil
            } else {
                #expect(!record_.contains { $0.hasPrefix("started \(words[1]) ") }, "\(words[1]) stopped while another played: \(record_)")
            }
        }
        #expect(playing == nil, "a player outlived the daemon: \(record_)")
    }

    @Test func aPlayerPastItsTimeoutIsStopped() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        try Self.writeSilence(setup.directory + "/ok.wav")
        let bin = setup.directory + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try "#!/bin/sh\nexec sleep 120\n".write(toFile: bin + "/aplay", atomically: true, encoding: .utf8)
        chmod(bin + "/aplay", 0o755)
        let simulator = try await setup.simulator()
        let daemon = try Self.daemon(setup, config: Self.config(setup, sound: "player: aplay\ntimeout: 500ms\nsuccess: ok.wav"), path: bin)
        try await daemon.waitForStderr(containing: "reader.connected")
        try await setup.request(Self.key)
        let stopped = try await Self.waitForEntry(daemon, "sound stopped at its timeout (feedback.sound.timeout)", moment: "success")
        #expect(stopped["status"]?.stringValue?.hasPrefix("timed out") == true)
        try await Self.stop(daemon, simulator)
    }

    @Test func runRefusesAMissingSoundFileWithItsLineAndColumn() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let daemon = try Self.daemon(setup, config: Self.config(setup, sound: "player: aplay\nsuccess: gone.wav"))
        let end = try await daemon.termination()
        #expect(end.status != .exited(0))
        let all = (daemon.stderr + daemon.stdout).map(\.text).joined(separator: "\n")
        #expect(all.contains("tagrouter.yaml:10:22: readers[0].feedback.sound.success: cannot read '\(setup.directory)/gone.wav': there is no such file"), "\(all)")
    }
}

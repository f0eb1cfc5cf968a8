import Foundation
import TestSupport
import Testing

/// `tagrouter help`, `--help` and what an argument error prints.
@Suite struct HelpTests {
    static func tagrouter(_ arguments: [String]) async throws -> ToolRun {
        try await ToolRun(BuiltProducts.tagrouter.path, arguments, timeout: .seconds(20))
    }

    @Test func helpWithACommandPrintsThatCommandsHelp() async throws {
        let help = try await Self.tagrouter(["help", "run"])
        let option = try await Self.tagrouter(["run", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.hasPrefix("Usage: tagrouter run"))
        #expect(help.stdout == option.stdout)
    }

    @Test func helpForAnUnknownCommandSaysSo() async throws {
        let help = try await Self.tagrouter(["help", "frobnicate"])
        #expect(help.status == 64)
        #expect(help.stderr == "error: unknown command 'frobnicate'\nsee `tagrouter --help`\n")
    }

    @Test func runsUsageNamesEveryOptionAndWhatTheDefaultDoes() async throws {
        let help = try await Self.tagrouter(["run", "--help"])
        let synopsis = help.stdout.split(separator: "\n\n", maxSplits: 1).first ?? ""
        for option in ["--config", "--dry-run", "--state-dir", "--events-from", "--log-level", "--log-format"] {
            #expect(synopsis.contains(option), "the usage line does not name \(option)")
        }
        #expect(help.stdout.contains("MQTT broker on localhost:1883"))
    }

    /// docs/guide/command-line.md shows what the tool prints (a block whose first line is `$ tagrouter …`): it must be what it prints.
    @Test func theCommandLineGuidesTranscriptsAreWhatTheToolPrints() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        let guide = try String(contentsOfFile: root + "/docs/guide/command-line.md", encoding: .utf8)
        let transcripts = guide.components(separatedBy: "```\n").enumerated().filter { $0.offset % 2 == 1 && $0.element.hasPrefix("$ tagrouter ") }.map(\.element)
        #expect(!transcripts.isEmpty)
        for transcript in transcripts {
            let lines = transcript.split(separator: "\n", maxSplits: 1)
            let arguments = lines[0].dropFirst("$ tagrouter ".count).split(separator: " ").map(String.init)
            let run = try await Self.tagrouter(arguments)
            #expect(run.stdout + run.stderr == (lines.count > 1 ? String(lines[1]) : ""), "`\(lines[0])` prints another text than the guide shows")
        }
    }

    @Test func anArgumentErrorIsOneLineAndAPointerToTheHelp() async throws {
        let run = try await Self.tagrouter(["watch", "--polling", "sometimes"])
        #expect(run.status == 64)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr == "error: --polling takes auto-poll, list-passive or fast, not 'sometimes'\nsee `tagrouter watch --help`\n")
    }
}

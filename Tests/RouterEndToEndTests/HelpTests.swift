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

    @Test func anArgumentErrorIsOneLineAndAPointerToTheHelp() async throws {
        let run = try await Self.tagrouter(["watch", "--polling", "sometimes"])
        #expect(run.status == 64)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr == "error: --polling takes auto-poll, list-passive or fast, not 'sometimes'\nsee `tagrouter watch --help`\n")
    }
}

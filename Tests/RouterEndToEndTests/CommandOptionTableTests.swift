import Foundation
import TestSupport
import Testing

/// Every command's option table, read back from the generated bash completion, is
/// what `--help`, the man page and the parser use: an option cannot be added to one
/// and missed by another.
@Suite struct CommandOptionTableTests {
    static func tagrouter(_ arguments: [String]) async throws -> ToolRun {
        try await ToolRun(BuiltProducts.tagrouter.path, arguments, timeout: .seconds(20))
    }

    /// The options of each command, from the completion script (`name) options="…" ;;`).
    static func tables() async throws -> [(command: String, options: [String])] {
        let script = try await tagrouter(["help", "--bash-completion"]).stdout
        return script.split(separator: "\n").compactMap { line in
            guard let paren = line.firstIndex(of: ")"), let quote = line.firstRange(of: "options=\""), line.hasSuffix("\" ;;") else { return nil }
            let command = line[..<paren].trimmingCharacters(in: .whitespaces)
            let options = line[quote.upperBound...].dropLast(4).split(separator: " ").map(String.init).filter { $0 != "--help" }
            return (command, options)
        }
    }

    /// A name as the man page writes it: `\-\-config`.
    static func roff(_ name: String) -> String { name.replacingOccurrences(of: "-", with: "\\-") }

    @Test func everyCommandHasATable() async throws {
        let commands = try await Self.tables().map(\.command)
        let toolHelp = try await Self.tagrouter(["--help"]).stdout
        let listed = toolHelp.split(separator: "\n", omittingEmptySubsequences: false).drop { $0 != "Commands:" }.dropFirst().prefix { !$0.isEmpty }
        #expect(commands == listed.map { String($0.split(separator: " ")[0]) })
        #expect(commands.contains("write") && commands.contains("run"))
    }

    @Test func everyOptionIsInTheHelpAndTheManPage() async throws {
        let man = try await Self.tagrouter(["help", "--man"]).stdout
        for (command, options) in try await Self.tables() {
            let help = try await Self.tagrouter([command, "--help"]).stdout
            let start = try #require(man.firstRange(of: ".SS \(Self.roff(command))\n"), "no man page section for \(command)")
            let section = man[start.upperBound...].split(separator: "\n.SS ", maxSplits: 1)[0]
            #expect(!options.isEmpty, "\(command) has no options")
            for option in options {
                #expect(help.contains("\n  \(option) ") || help.contains("\n  \(option)\n"), "`\(command) --help` does not list \(option)")
                let roff = Self.roff(option)
                #expect(section.contains("\n  \(roff) ") || section.contains("\n  \(roff)\n"), "the man page's \(command) does not list \(option)")
            }
        }
    }

    @Test func theParserTakesExactlyTheTablesOptions() async throws {
        for (command, options) in try await Self.tables() {
            let unknown = try await Self.tagrouter([command, "--not-an-option"])
            #expect(unknown.status == 64)
            #expect(unknown.stderr.hasPrefix("error: unknown argument '--not-an-option'"), "\(command): \(unknown.stderr)")
            for option in options {
                // Arguments are checked against the table before the command runs: an accepted
                // option lets the check reach the unknown one after it.
                let run = try await Self.tagrouter([command, option, "x", "--not-an-option"])
                #expect(run.status == 64)
                #expect(run.stderr.hasPrefix("error: unknown argument '--not-an-option'"), "\(command) refuses its own \(option): \(run.stderr)")
            }
        }
    }

    @Test func aMisspeltOptionGetsTheClosestName() async throws {
        let run = try await Self.tagrouter(["watch", "--devcie", "auto"])
        #expect(run.status == 64)
        #expect(run.stderr == "error: unknown argument '--devcie' (did you mean --device?)\nsee `tagrouter watch --help`\n")
    }

    @Test func aFlagTakesNoValue() async throws {
        let run = try await Self.tagrouter(["write", "--lock=yes", "--text", "x"])
        #expect(run.status == 64)
        #expect(run.stderr.hasPrefix("error: --lock takes no value\n"))
    }
}

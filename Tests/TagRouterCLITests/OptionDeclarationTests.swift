@testable import TagRouterCLI
import TestSupport
import Testing

/// Every command's option table, walked in process: what its help, usage line, man
/// page and completion show is what the parser takes and the command gets.
@Suite struct OptionDeclarationTests {
    /// The commands whose options are typed (every command, once the last is converted).
    static var commands: [any Command.Type] { Tool.commands.filter { !$0.about.hasPrefix("Usage:") } }

    static var everyOption: [(command: any Command.Type, option: CommandOption)] {
        commands.flatMap { command in command.declarations.map { (command, $0) } }
    }

    /// A default as help text would state it: `(default 60)`, `default: auto`, `default 0.5`.
    nonisolated(unsafe) static let handWrittenDefault = /\(default|default:|default \d/

    /// Words only: help continues a default on the next line, indented.
    static func words(_ text: some StringProtocol) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// The lines `--help` gives one option: from its label to the next option's.
    static func helpBlock(of option: CommandOption, in usage: String) -> String? {
        let lines = usage.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0 == "  " + option.label || $0.hasPrefix("  " + option.label + " ") }) else { return nil }
        let rest = lines[(start + 1)...].prefix { $0.hasPrefix("   ") }
        return ([lines[start]] + rest).joined(separator: "\n")
    }

    @Test func theDefaultHelpShowsIsTheValueTheCommandGetsWhenTheOptionIsLeftOut() throws {
        var defaulted = 0
        for (command, option) in Self.everyOption {
            let block = try #require(Self.helpBlock(of: option, in: command.usage), "\(command.name) --help lacks \(option.label)")
            // A default is never written by hand: it is generated from the declaration, or it could drift.
            #expect(option.help.firstMatch(of: Self.handWrittenDefault) == nil, "\(command.name) \(option.names[0]): a default written in its help text")
            guard let value = option.value else { continue }
            if let shown = value.shownDefault {
                #expect(Self.words(block).contains("(default: \(Self.words(shown)))"), "\(command.name) \(option.names[0]): help shows no default")
            } else {
                #expect(!block.contains("(default"), "\(command.name) \(option.names[0])")
            }
            guard let absent = value.absentValueText else { continue }
            defaulted += 1
            // What `Arguments` hands the command when the option is not given, written back as text:
            #expect(value.shownDefault == absent, "\(command.name) \(option.names[0]): help shows \(value.shownDefault ?? "no default"), the command gets \(absent)")
            #expect(value.defaultReadsBack, "\(command.name) \(option.names[0]): its default \(absent) reads back as another value")
        }
        #expect(defaulted >= 2)
    }

    /// An option that may be left out says what absence means in words, never as a
    /// value of its type: that value would belong in `default:`, where the command gets it.
    @Test func aDescribedDefaultIsNotAValueTheCommandCouldHaveBeenGiven() {
        for (command, option) in Self.everyOption {
            guard let value = option.value, value.absentValueText == nil, let shown = value.shownDefault else { continue }
            #expect(!value.reads(shown), "\(command.name) \(option.names[0]): '(default: \(shown))' is a value; declare it with default:")
        }
    }

    @Test func everyUsageLineIsGeneratedFromTheTable() {
        for command in Self.commands {
            #expect(!command.about.contains("Usage:"), "\(command.name) writes its usage by hand")
            #expect(command.usage.hasPrefix("Usage: tagrouter \(command.name)"))
            let named = command.synopses.flatMap { $0.parts.flatMap(\.options) }
            for option in command.declarations {
                #expect(named.contains(option), "\(command.name)'s usage lines leave out \(option.names[0])")
            }
            for option in named {
                #expect(command.declarations.contains(option), "\(command.name)'s usage names \(option.names[0]), which its table lacks")
            }
        }
        #expect(Self.commands.count >= 2)
        #expect(Tool.usage.contains("Usage: tagrouter <command> [options]"))
    }

    @Test func theUsageLineShowsChoicesRepeatsAndAlternatives() {
        #expect(WatchCommand.usageLines.hasPrefix("Usage: tagrouter watch [--device CONNSTRING [--name NAME]]… [--config FILE] [--if-busy wait|exit]"))
        #expect(WatchCommand.usageLines.contains("[--polling auto-poll|list-passive|fast]"))
        #expect(WatchCommand.usageLines.split(separator: "\n").allSatisfy { $0.count <= Synopsis.width })
    }

    @Test func theManPageListsEveryOptionWithItsChoicesUnderItsCommand() throws {
        let man = ManPage(commands: Tool.commands, toolUsage: Tool.usage, version: "test").roff
        for command in Tool.commands {
            let start = try #require(man.firstRange(of: ".SS \(command.name.roffEscaped)\n"), "no section for \(command.name)")
            let section = man[start.upperBound...].split(separator: "\n.SS ", maxSplits: 1)[0]
            for option in command.declarations {
                #expect(section.contains("\n  \(option.label.roffEscaped)"), "the man page's \(command.name) lacks \(option.label)")
                for choice in option.value?.choices ?? [] {
                    #expect(section.contains(choice.roffEscaped), "the man page's \(command.name) lacks \(option.names[0])'s \(choice)")
                }
            }
        }
    }

    /// Completion as bash runs it, on the generated script: after an option, its choices.
    @Test func theCompletionOffersEveryOptionAndEveryChoice() async throws {
        let script = BashCompletion(commands: Tool.commands).script
        func complete(_ words: [String]) async throws -> [String] {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            let program = "\(script)\nCOMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _tagrouter; printf '%s\\n' \"${COMPREPLY[@]}\""
            let run = try await ToolRun("/bin/bash", ["--norc", "-c", program])
            #expect(run.status == 0, "\(run.stderr)")
            return run.stdout.split(separator: "\n").map(String.init)
        }
        var choices = 0
        for command in Tool.commands {
            let offered = try await complete(["tagrouter", command.name, "--"])
            for option in command.declarations {
                #expect(offered.contains(option.names[0]), "`tagrouter \(command.name) --<TAB>` lacks \(option.names[0])")
                guard let value = option.value, !value.choices.isEmpty else { continue }
                choices += 1
                #expect(try await complete(["tagrouter", command.name, option.names[0], ""]) == value.choices, "\(command.name) \(option.names[0])")
            }
        }
        #expect(choices >= 4)
        #expect(try await complete(["tagrouter", "watch", "--polling", "f"]) == ["fast"])
    }
}

extension String {
    /// As the man page writes it: `\-\-config`.
    var roffEscaped: String { replacing("-", with: "\\-") }
}

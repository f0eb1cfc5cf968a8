import Foundation
import TestSupport
import Testing

/// The man page and bash completion the package ships, generated from the tool's own help.
@Suite struct GeneratedDocumentTests {
    /// Every command `tagrouter --help` lists.
    static func commandNames(_ binary: String) async throws -> [String] {
        let help = try await Shell.check(binary, ["--help"])
        let table = help.components(separatedBy: "Commands:\n").last?.components(separatedBy: "\n\n").first ?? ""
        return table.split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) }
    }

    @Test func manPageRendersCleanlyWithEveryCommand() async throws {
        let package = try await BuiltPackage.shared
        let page = package.root + "/usr/share/man/man1/tagrouter.1.gz"
        let rendered = try await Shell.run("man", ["--warnings", "-E", "UTF-8", "-l", page], environment: ["MANWIDTH": "80"])
        #expect(rendered.status == 0)
        #expect(rendered.stderr.isEmpty, "\(rendered.stderr)")
        let names = try await Self.commandNames(package.root + "/usr/bin/tagrouter")
        #expect(names.count >= 9)
        for name in names {
            #expect(rendered.stdout.contains("\n   \(name)\n"), "no section for \(name)")
            let usage = try await Shell.check(package.root + "/usr/bin/tagrouter", [name, "--help"])
            let firstLine = try #require(usage.split(separator: "\n").first)
            #expect(rendered.stdout.contains(firstLine), "the man page lacks `\(firstLine)`")
        }
        #expect(rendered.stdout.contains("→"), "non-ASCII text survives as itself")
    }

    /// Completion as bash runs it: the function is called with COMP_WORDS set as bash would.
    @Test func bashCompletesCommandsAndEachCommandsOptions() async throws {
        let package = try await BuiltPackage.shared
        let script = package.root + "/usr/share/bash-completion/completions/tagrouter"
        func complete(_ words: [String]) async throws -> [String] {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            let program = "source '\(script)'; COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _tagrouter; printf '%s\\n' \"${COMPREPLY[@]}\""
            return try await Shell.check("bash", ["--norc", "-c", program]).split(separator: "\n").map(String.init)
        }
        #expect(try await complete(["tagrouter", "ch"]) == ["check-config"])
        #expect(try await complete(["tagrouter", "de"]).sorted() == ["decode", "demo", "devices"])
        #expect(try await complete(["tagrouter", "run", "--conf"]) == ["--config"])
        #expect(try await complete(["tagrouter", "watch", "--po"]) == ["--polling"])
        #expect(try await complete(["tagrouter", "devices", "--"]).sorted() == ["--device", "--help"])
    }
}

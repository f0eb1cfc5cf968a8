import Foundation
import TestSupport
import Testing

/// The man pages and bash completion the package ships, generated from the tool's own help and the config's option specs.
@Suite struct GeneratedDocumentTests {
    /// Every command `tagrouter --help` lists.
    static func commandNames(_ binary: String) async throws -> [String] {
        let help = try await Shell.check(binary, ["--help"])
        let table = help.components(separatedBy: "Commands:\n").last?.components(separatedBy: "\n\n").first ?? ""
        return table.split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) }
    }

    /// A man page of the package as `man` shows it at 80 columns, which must have no warning to give.
    static func rendered(_ page: String) async throws -> ToolRun {
        let rendered = try await Shell.run("man", ["--warnings", "-E", "UTF-8", "-l", page], environment: ["MANWIDTH": "80"])
        #expect(rendered.status == 0)
        #expect(rendered.stderr.isEmpty, "\(rendered.stderr)")
        return rendered
    }

    @Test func manPageRendersCleanlyWithEveryCommand() async throws {
        let package = try await BuiltPackage.shared
        let rendered = try await Self.rendered(package.root + "/usr/share/man/man1/tagrouter.1.gz")
        let names = try await Self.commandNames(package.root + "/usr/bin/tagrouter")
        #expect(names.count >= 9)
        for name in names {
            #expect(rendered.stdout.contains("\n   \(name)\n"), "no section for \(name)")
            let usage = try await Shell.check(package.root + "/usr/bin/tagrouter", [name, "--help"])
            let firstLine = try #require(usage.split(separator: "\n").first)
            #expect(rendered.stdout.contains(firstLine), "the man page lacks `\(firstLine)`")
        }
        #expect(rendered.stdout.contains("→"), "non-ASCII text survives as itself")
        #expect(rendered.stdout.contains("tagrouter.yaml(5)"), "SEE ALSO lacks the config's page")
    }

    @Test func configManPageRendersCleanlyAndNamesEverySectionOfTheSpecs() async throws {
        let package = try await BuiltPackage.shared
        let page = package.root + "/usr/share/man/man5/tagrouter.yaml.5.gz"
        let rendered = try await Self.rendered(page)
        // Every groff warning (`man --warnings` turns on only the macro ones), on the terminal device: the
        // specs write ‖ and →, which PostScript's fonts (`man -t`) lack.
        let strict = try await Shell.run("sh", ["-c", "gzip -dc \"$1\" | groff -man -Tutf8 -ww -z", "sh", page])
        #expect(strict.status == 0 && strict.stderr.isEmpty, "groff -ww: \(strict.stderr)")
        #expect(rendered.stdout.hasPrefix("TAGROUTER.YAML(5)"))
        // Justified lines may have wider gaps between words.
        let text = rendered.stdout.replacing(/(\S) {2,}/) { "\($0.output.1) " }

        // The specs, as the packaged binary prints them: every table's heading, every top-level key and
        // a sample of the others (every fifth) must be on the page.
        let reference = try await Shell.check(package.root + "/usr/bin/tagrouter", ["check-config", "--reference"])
        let headings = reference.split(separator: "\n").filter { $0.hasPrefix("#### ") }.map { $0.dropFirst(5).filter { $0 != "`" } }
        #expect(headings.count > 10)
        for heading in headings { #expect(text.contains("\n   \(heading)\n"), "no subsection \(heading)") }
        let keys = reference.split(separator: "\n").compactMap { $0.firstMatch(of: /^\| `([^`]+)` \|/).map { String($0.output.1) } }
        let topLevel = keys.filter { !$0.contains(".") && !$0.contains("[") }
        #expect(topLevel.contains("readers") && topLevel.contains("routes"), "\(topLevel)")
        for key in topLevel + keys.enumerated().filter({ $0.offset % 5 == 0 }).map(\.element) {
            #expect(text.contains("\n       \(key) ("), "no paragraph for \(key)")
        }
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

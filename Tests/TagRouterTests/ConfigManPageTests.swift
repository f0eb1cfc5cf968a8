import Foundation
import Testing

@testable import TagRouter

/// tagrouter.yaml(5) from the option specs, rendered by groff as `man` would.
@Suite struct ConfigManPageTests {
    /// An action whose texts hold what roff would otherwise act on: a leading dot or quote, backslashes, dashes.
    struct RoffProbePlugin: ActionPlugin {
        static let name = "roff-probe"
        static let sectionSpec: OptionSpec? = OptionSpec(".section summary starting with a dot", [
            Option("pattern", .string, default: #"^\d+\.\d+$"#, #"a regex such as `^\d+$`; "quoted" and \n stays"#),
        ])
        static let actionSpec = OptionSpec("action summary", scalarOption: "mode", [
            Option("mode", .choice(["on", "off"]), default: "on", ".leading dot: a request to roff unless escaped"),
            Option("quote", .template, default: "'{{reader}}'", "'leading quote, then `--dashes` and `.dotted` code"),
            Option("required_key", .string, required: true, "must be given"),
        ])

        init(section: ConfigValue, context: PluginContext) throws(ConfigErrors) {}
        func makeAction(_ options: ConfigValue, route: String) throws(ConfigErrors) -> any Action { ProbeAction(topic: options.template("quote")) }
    }

    /// The page as text (one key per line: no wrapping, no hyphenation), and groff's warnings.
    static func render(_ roff: String) throws -> (text: String, warnings: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("roff-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let page = folder.appendingPathComponent("tagrouter.yaml.5")
        try roff.write(to: page, atomically: true, encoding: .utf8)
        let groff = Process()
        groff.executableURL = URL(fileURLWithPath: "/usr/bin/groff")
        groff.arguments = ["-man", "-Tutf8", "-ww", "-rLL=1000n", "-rHY=0", "-P-cbou", page.path]
        let errors = folder.appendingPathComponent("stderr")
        #expect(FileManager.default.createFile(atPath: errors.path, contents: nil))
        let output = Pipe()
        groff.standardOutput = output
        groff.standardError = try FileHandle(forWritingTo: errors)
        try groff.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        groff.waitUntilExit()
        #expect(groff.terminationStatus == 0)
        return (text, try String(contentsOf: errors, encoding: .utf8))
    }

    @Test func everyKeyPrintsAsTheSpecsSayWithoutWarnings() throws {
        let loader = ConfigLoader(registry: PluginRegistry([LogPlugin.self, RoffProbePlugin.self]), environment: [:])
        let (text, warnings) = try Self.render(ConfigManPage.roff(loader, version: "9.9.9"))
        #expect(warnings.isEmpty, "\(warnings)")
        #expect(text.contains("TAGROUTER.YAML(5)"))
        #expect(text.contains("tagrouter 9.9.9"))
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        // The texts roff would have eaten or changed, printed as written (code spans lose their backticks).
        for expected in [
            "roff-probe: section", ".section summary starting with a dot.",
            #"roff-probe.pattern (string; default ^\d+\.\d+$)"#, #"a regex such as ^\d+$; "quoted" and \n stays"#,
            "- roff-probe action", "Action summary; a lone value sets mode.",
            "- roff-probe.mode (on | off; default on)", ".leading dot: a request to roff unless escaped",
            "- roff-probe.quote (template; default '{{reader}}')", "'leading quote, then --dashes and .dotted code",
            "- roff-probe.required_key (string; required)", "must be given",
        ] {
            let found = lines.contains(expected)
            #expect(found, "the page lacks the line `\(expected)`")
        }
        // Every table of the reference has its heading, and every key its paragraph.
        for section in ReferenceSection.all(loader) {
            let heading = lines.contains(section.title.filter { $0 != "`" })
            #expect(heading, "no heading for \(section.title)")
            for row in section.rows {
                let paragraph = lines.contains { $0.hasPrefix(row.key + " (") }
                #expect(paragraph, "no paragraph for \(row.key)")
            }
        }
    }
}

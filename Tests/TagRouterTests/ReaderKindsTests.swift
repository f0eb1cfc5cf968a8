import TagCore
import Testing

@testable import TagRouter

/// How `readers:` entries meet the reader kinds a registry holds: each device
/// belongs to the kind its scheme names, else to the one without a scheme; a
/// kind's own options are read by it and warned about on readers of another kind.
@Suite struct ReaderKindsTests {
    /// The kind of every device no other kind claims.
    enum Plain: ReaderKind {
        static let scheme: String? = nil
        static let title = "plain"
        static let deviceHelp = "any name"
    }

    /// A kind with a scheme and an option of its own, which it keeps in the reader's name to show it read it.
    enum Dotted: ReaderKind {
        static let scheme: String? = "dot"
        static let title = "dotted"
        static let deviceHelp = "`dot:<name>`"
        static let options = [Option("dots", .int(1...9), default: "3", "how many dots")]

        static func load(_ value: ConfigValue, into reader: inout ReaderConfig, _ errors: inout ConfigErrors) {
            reader.name += String(repeating: ".", count: value.int("dots"))
        }
    }

    let kinds = ReaderKinds([Plain.self, Dotted.self])

    @Test func aDeviceBelongsToTheKindItsSchemeNamesElseToTheOneWithout() {
        #expect(kinds.kind(for: "dot:front") == Dotted.self)
        #expect(kinds.kind(for: "dotty") == Plain.self)
        #expect(kinds.kind(for: "auto") == Plain.self)
        #expect(ReaderKinds([Dotted.self]).kind(for: "auto") == nil)
    }

    @Test func aKindReadsItsOwnOptionsAndAnotherKindsReaderIsWarned() throws {
        let loader = ConfigLoader(registry: PluginRegistry([LogPlugin.self], readers: kinds), environment: [:])
        let config = try loader.load(text: """
            readers:
              - {name: a, device: "dot:x", dots: 2}
              - {name: b, device: "dot:y"}
              - {name: c, device: "c", dots: 1}
            routes: [{actions: [log]}]
            """, file: "t.yaml", directory: "/tmp")
        #expect(config.readers.map(\.name) == ["a..", "b...", "c"])
        #expect(config.warnings.map(\.description) == [
            "t.yaml:4:34: warning: readers[2].dots: applies to dotted readers; reader 'c' is a plain reader (c), so it changes nothing here",
        ])
    }

    @Test func theReferenceSaysHowEachKindWritesADevice() {
        let spec = ReaderConfig.spec(kinds: kinds)
        #expect(spec.option("device")?.meaning == "any name; or `dot:<name>`")
        #expect(spec.option("dots")?.defaultValue == "3")
    }
}

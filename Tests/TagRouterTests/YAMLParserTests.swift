import TagCore
import Testing

@testable import TagRouter

@Suite struct YAMLParserTests {
    @Test func keepsLinesColumnsAndStyles() throws {
        let root = try YAMLParser.parse("a: 1\nb:\n  - \"x\"\n  - {c: true}\n", file: "f.yaml")
        #expect(root["a"]?.mark == SourceMark(file: "f.yaml", line: 1, column: 4))
        let list = try #require(root["b"]?.elements)
        #expect(list[0].mark == SourceMark(file: "f.yaml", line: 3, column: 5))
        if case .scalar("x", plain: false) = list[0].content {} else { Issue.record("quoted scalar lost its style") }
        #expect(list[1]["c"]?.mark.column == 9)
    }

    @Test func resolvesAnchorsAndAliases() throws {
        let root = try YAMLParser.parse("base: &b {topic: t, qos: 1}\nother: *b\n", file: "f.yaml")
        #expect(root["other"]?["qos"]?.scalar == "1")
    }

    @Test func emptyDocumentIsAnEmptyMapping() throws {
        #expect(try YAMLParser.parse("", file: "f").entries?.isEmpty == true)
        #expect(try YAMLParser.parse("# only a comment\n", file: "f").entries?.isEmpty == true)
    }

    @Test func rejectsWhatIsNotOneConfig() {
        #expect(throws: ConfigErrors.self) { try YAMLParser.parse("a: 1\n---\nb: 2\n", file: "f") }
        #expect(throws: ConfigErrors.self) { try YAMLParser.parse("a: *nope\n", file: "f") }
        #expect(throws: ConfigErrors.self) { try YAMLParser.parse("? [a, b]\n: 1\n", file: "f") }
        #expect(throws: ConfigErrors.self) { try YAMLParser.parse("a: \"unterminated\n", file: "f") }
    }

    /// Every prefix of a valid config either parses or fails with an error: never a trap.
    @Test func prefixesNeverTrap() {
        let text = "routes:\n  - name: x\n    match: {uri: \"a*\"}\n    actions: [log, {log: \"{{uri}}\"}]\n"
        var parsed = 0
        for end in text.indices {
            if (try? YAMLParser.parse(String(text[..<end]), file: "f")) != nil { parsed += 1 }
        }
        #expect(parsed > 0)
    }
}

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

    /// Two documents, an unknown alias, a complex key, an open quote: each an error that says where.
    @Test(arguments: ["a: 1\n---\nb: 2\n", "a: *nope\n", "? [a, b]\n: 1\n", "a: \"unterminated\n"])
    func rejectsWhatIsNotOneConfig(text: String) {
        let error = #expect(throws: ConfigErrors.self) { try YAMLParser.parse(text, file: "f") }
        #expect(error?.description.hasPrefix("f:") == true, "\(error?.description ?? "")")
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

import OrderedJSON
import Testing

/// The writer's text for values: escapes, unicode, numbers, order, pretty layout.
struct WriterTests {
    @Test(arguments: [
        Example(#""plain ascii""#, "plain ascii"),
        Example(#""quote \" backslash \\ slash /""#, "quote \" backslash \\ slash /"),
        Example(#""\n\r\t""#, "\n\r\t"),
        Example(#""\u0000\u0001\u0008\u000c\u001f""#, "\u{0}\u{1}\u{8}\u{c}\u{1f}"),
        Example("\"\u{7f} é 日本 🌍\"", "\u{7f} é 日本 🌍"),
        Example(#""\"""#, "\""),
        Example(#""""#, ""),
        Example("0", .int(0)),
        Example("-1", .int(-1)),
        Example("9223372036854775807", .int(Int64.max)),
        Example("-9223372036854775808", .int(Int64.min)),
        Example("1.5", .double(1.5)),
        Example("1.0", .double(1)),
        Example("-0.0", .double(-0.0)),
        Example("1e+300", .double(1e300)),
        Example("0.1", .double(0.1)),
        Example("null", .double(.infinity)),
        Example("null", .double(.nan)),
        Example("true", true),
        Example("null", nil),
        Example("[]", []),
        Example("{}", [:]),
        Example(#"{"b":1,"a":[true,null,1.5],"c":{}}"#, ["b": 1, "a": [true, nil, 1.5], "c": [:]]),
    ])
    func compactText(_ example: Example) {
        #expect(example.value.serialized() == example.text)
    }

    @Test func prettyTextIndentsByTwoSpaces() {
        let value: JSONValue = ["records": [["tnf": 1, "type": "U"]], "empty": [], "none": [:]]
        #expect(value.serialized(pretty: true) == """
            {
              "records": [
                {
                  "tnf": 1,
                  "type": "U"
                }
              ],
              "empty": [],
              "none": {}
            }
            """)
    }

    /// An object written member by member straight into the bytes reads the same as
    /// the same members collected in a `JSONObject` and written, compact and pretty.
    @Test(arguments: [false, true])
    func membersWrittenStraightMatchTheTree(pretty: Bool) {
        func members(into sink: inout some JSONMemberSink) {
            sink.member("n", 1)
            sink.member("s", string: "a \"quoted\" é")
            sink.member("records", objects: [0, 1, 2]) { index, record in
                record.member("index", .int(Int64(index)))
                if index == 1 { record.member("nested", ["x": [1, 2], "y": [:]]) }
            }
            sink.member("none", objects: [Int]()) { _, _ in }
        }
        var tree = JSONObject()
        members(into: &tree)
        var writer = JSONWriter(pretty: pretty)
        writer.write([1])
        writer.writeObject { members(into: &$0) }
        writer.writeObject { _ in }
        #expect(String(decoding: writer.bytes, as: UTF8.self) == JSONValue.array([1]).serialized(pretty: pretty) + JSONValue.object(tree).serialized(pretty: pretty) + "{}")
    }

    @Test func aReusedWriterStartsAfresh() {
        var writer = JSONWriter()
        writer.write(["a": "x"])
        writer.clear()
        writer.write([1, 2])
        #expect(String(decoding: writer.bytes, as: UTF8.self) == "[1,2]")
    }

    /// The writer skips plain text eight bytes at a time: a character to escape is found
    /// wherever it sits in a word, beside ASCII or multi-byte characters.
    @Test(arguments: [("\"", #"\""#), ("\\", #"\\"#), ("\u{1}", #"\u0001"#), ("\u{1f}", #"\u001f"#), ("\n", #"\n"#)])
    func escapesAreFoundAtEveryPosition(character: String, escaped: String) {
        for filler in ["abcdefgh", "é日🌍 ~\u{7f}"] {
            for position in 0...17 {
                let before = String(repeating: filler, count: 3).prefix(position)
                let after = String(repeating: filler, count: 2)
                #expect(JSONValue.string(before + character + after).serialized() == "\"" + before + escaped + after + "\"")
            }
        }
    }

    /// Every string, whatever it holds, reads back as itself.
    @Test(arguments: ["", "a\"b\\c", "\u{0}x\u{1f}", "line\nbreak", "é🌍日本", String(repeating: "long run ", count: 200) + "\"end"])
    func stringsRoundTrip(_ text: String) throws {
        #expect(try JSONValue.parse(JSONValue.string(text).serialized()) == .string(text))
    }
}

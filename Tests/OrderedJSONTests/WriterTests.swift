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

/// The writer's own buffer: text that outgrows it, copies that do not share
/// writes, and the escaping edges the event format relies on.
struct WriterBufferTests {
    /// Every control character is escaped, in its short form where JSON has one;
    /// DEL and everything above ASCII are written as they are.
    @Test func controlCharactersAreEscaped() {
        let short: [UInt8: String] = [0x08: "\\u0008", 0x09: "\\t", 0x0A: "\\n", 0x0C: "\\u000c", 0x0D: "\\r"]
        for byte in UInt8(0)..<0x20 {
            let expected = short[byte] ?? "\\u00" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16)
            #expect(JSONValue.string(String(UnicodeScalar(byte))).serialized() == "\"" + expected + "\"", "byte \(byte)")
        }
        #expect(JSONValue.string("\u{7f}").serialized() == "\"\u{7f}\"")
    }

    /// U+2028 and U+2029 are valid in JSON text and written raw, like all non-ASCII text.
    @Test func lineAndParagraphSeparatorsAreWrittenRaw() throws {
        let text = "a\u{2028}b\u{2029}c"
        #expect(Array(JSONValue.string(text).serialized().utf8) == Array("\"a\u{2028}b\u{2029}c\"".utf8))
        #expect(try JSONValue.parse(JSONValue.string(text).serialized()) == .string(text))
    }

    /// A string made from bytes that are not UTF-8 holds U+FFFD in their place, so
    /// the writer's text is always valid UTF-8.
    @Test func textIsAlwaysValidUTF8() {
        let repaired = String(decoding: [0x41, 0xFF, 0xC3, 0x28, 0xED, 0xA0, 0x80, 0x42], as: UTF8.self)
        var writer = JSONWriter(capacity: 1)
        writer.write(.string(repaired))
        #expect(String(validating: writer.bytes, as: UTF8.self) != nil)
        #expect(writer.text.hasPrefix("\"A\u{FFFD}") && writer.text.hasSuffix("B\""))
    }

    @Test(arguments: [Int64(9), 10, 99, 100, 999_999_999, 1_000_000_000, 999_999_999_999_999_999, 1_000_000_000_000_000_000, Int64.max, -9, -10, Int64.min + 1, Int64.min])
    func integersAreWrittenInFull(_ int: Int64) {
        #expect(JSONValue.int(int).serialized() == String(int))
    }

    /// A writer that starts tiny grows as it goes, whether the growth falls in plain
    /// text, in an escape at the end of a long string, or in indentation.
    @Test(arguments: [false, true])
    func textOutgrowsTheBuffer(pretty: Bool) {
        let long = String(repeating: "plain é ", count: 100)
        let value: JSONValue = ["a": .string(long + "\"\u{1}"), "b": [.string("\\" + long), 12345, [["deep": [1, 2]]]], "c": .string(long)]
        var writer = JSONWriter(pretty: pretty, capacity: 1)
        writer.write(value)
        writer.write(value)
        #expect(writer.text == value.serialized(pretty: pretty) + value.serialized(pretty: pretty))
    }

    /// A copy of a writer is a value: writing to one leaves the other as it was.
    @Test func copiesDoNotShareWrites() {
        var writer = JSONWriter(capacity: 64)
        writer.write("first")
        var copy = writer
        copy.write("second")
        writer.clear()
        writer.write(Int64(1))
        #expect(copy.text == #""first""second""#)
        #expect(writer.text == "1")
    }
}

/// Bytes as a hex-digit string: written straight or kept in a tree, the same text.
struct HexMemberTests {
    @Test(arguments: [[UInt8](), [0x00], [0xD1, 0x01, 0x0F, 0xF0, 0xFF, 0x7A], Array(0...255)])
    func hexIsLowercaseTwoDigitsAByte(bytes: [UInt8]) {
        let expected = "\"" + bytes.map { ($0 < 0x10 ? "0" : "") + String($0, radix: 16) }.joined() + "\""
        var writer = JSONWriter(capacity: 1)
        writer.write(hex: bytes)
        #expect(writer.text == expected)
        var tree = JSONObject()
        tree.member("h", hex: bytes)
        writer.clear()
        writer.writeObject { $0.member("h", hex: bytes) }
        #expect(writer.text == JSONValue.object(tree).serialized())
        #expect(writer.text == "{\"h\":" + expected + "}")
    }
}

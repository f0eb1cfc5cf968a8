import OrderedJSON
import Testing

/// The parser: values and their kinds, order kept, errors at a byte offset, the nesting bound.
struct ParserTests {
    @Test(arguments: [
        Example("0", .int(0)),
        Example("-12", .int(-12)),
        Example("9223372036854775807", .int(Int64.max)),
        Example("-9223372036854775808", .int(Int64.min)),
        Example("9223372036854775808", .double(9223372036854775808)),
        Example("1.0", .double(1)),
        Example("-1.5e2", .double(-150)),
        Example("1E+300", .double(1e300)),
        Example("2e-3", .double(0.002)),
        Example(" true ", true),
        Example("false", false),
        Example("null", nil),
        Example(#""a\"b\\c\/d\b\f\n\r\t""#, "a\"b\\c/d\u{8}\u{c}\n\r\t"),
        Example(#""\u00e9\u65e5\ud83c\udf0d""#, "é日🌍"),
        Example("\"é🌍 raw\"", "é🌍 raw"),
        Example("[ 1 , [ ] , { } ]", [1, [], [:]]),
        Example(#"{"a": 1, "a": 2}"#, ["a": 2]),
    ])
    func parsesValue(_ example: Example) throws {
        #expect(try JSONValue.parse(example.text) == example.value)
    }

    @Test func integersAndDoublesStayApart() throws {
        #expect(try JSONValue.parse("1") != JSONValue.parse("1.0"))
        #expect(try JSONValue.parse("true") != JSONValue.parse("1"))
    }

    @Test func negativeZeroKeepsItsSign() throws {
        let value = try JSONValue.parse("-0")
        guard case .double(let zero) = value else { Issue.record("-0 parsed as \(value)"); return }
        #expect(zero == 0 && zero.sign == .minus)
        #expect(value.serialized() == "-0.0")
    }

    @Test func membersKeepTheOrderOfTheText() throws {
        let text = #"{"z":1,"a":{"y":true,"b":null},"m":[3,2,1]}"#
        let value = try JSONValue.parse(text)
        guard case .object(let object) = value else { Issue.record("not an object"); return }
        #expect(object.keys == ["z", "a", "m"])
        #expect(value.serialized() == text)
    }

    @Test func manyKeysStayFindable() throws {
        let text = "{" + (0..<1000).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + "}"
        let value = try JSONValue.parse(text)
        #expect(value["k0"] == 0 && value["k999"] == 999 && value["k1000"] == nil)
        #expect(value.serialized() == text)
    }

    struct Failure: Sendable, CustomStringConvertible {
        var text: String
        var message: String
        var description: String { text }
    }

    @Test(arguments: [
        Failure(text: "", message: "at byte 0: expected a JSON value, found the end of the text"),
        Failure(text: "{", message: "at byte 1: expected a member name in double quotes, found the end of the text"),
        Failure(text: #"{"a" 1}"#, message: "at byte 5: expected ':' after the member name, found '1'"),
        Failure(text: #"{"a":1 "b":2}"#, message: "at byte 7: expected ',' or '}' after an object member, found '\"'"),
        Failure(text: "[1,]", message: "at byte 3: expected a JSON value, found ']'"),
        Failure(text: "[1 2]", message: "at byte 3: expected ',' or ']' after an array element, found '2'"),
        Failure(text: "01", message: "at byte 0: a number must not start with 0 followed by digits"),
        Failure(text: "1.", message: "at byte 2: expected a digit after '.', found the end of the text"),
        Failure(text: "1e", message: "at byte 2: expected a digit in the exponent, found the end of the text"),
        Failure(text: "-", message: "at byte 1: expected a digit, found the end of the text"),
        Failure(text: "tru", message: "at byte 3: expected 'true', found the end of the text"),
        Failure(text: "\"abc", message: "at byte 4: expected '\"' to end the string, found the end of the text"),
        Failure(text: "\"a\nb\"", message: "at byte 2: expected a control character in a string to be escaped, found byte 0xa"),
        Failure(text: #""\x""#, message: #"at byte 2: expected one of " \ / b f n r t u after '\', found 'x'"#),
        Failure(text: #""\u12g4""#, message: "at byte 5: expected four hex digits after '\\u', found 'g'"),
        Failure(text: #""\ud83c""#, message: "at byte 1: a high surrogate \\ud83c must be followed by a low one"),
        Failure(text: #""\udf0d""#, message: "at byte 1: a lone low surrogate \\udf0d"),
        Failure(text: "{} x", message: "at byte 3: expected the end of the text after the JSON value, found 'x'"),
        Failure(text: "NaN", message: "at byte 0: expected a JSON value, found 'N'"),
    ])
    func rejectsWithOffset(_ example: Failure) {
        #expect(throws: JSONParseError.self) { try JSONValue.parse(example.text) }
        do {
            _ = try JSONValue.parse(example.text)
        } catch {
            #expect(error.description == example.message)
        }
    }

    /// Invalid UTF-8 anywhere in a string (a value, after an escape, a member name), and where it is reported.
    static let invalidUTF8: [(bytes: [UInt8], offset: Int)] = [
        ([0x22, 0xC3, 0x28, 0x22], 1),
        ([0x22, 0x5C, 0x6E, 0xC3, 0x28, 0x22], 3),
        ([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D], 2),
    ]

    @Test(arguments: invalidUTF8)
    func invalidUTF8IsRejected(bytes: [UInt8], offset: Int) {
        #expect(throws: JSONParseError(offset: offset, reason: "the string is not valid UTF-8")) {
            try JSONValue.parse(bytes: bytes)
        }
    }

    /// Strings with and without non-ASCII text, raw or escaped, read back as the same text.
    @Test(arguments: [(#""plain ASCII""#, "plain ASCII"), (#""café""#, "café"), (#""caf\u00e9""#, "café"), (#""a\"b é""#, "a\"b é")])
    func stringsReadBack(json: String, text: String) throws {
        #expect(try JSONValue.parse(json) == .string(text))
    }

    /// Strings are scanned eight bytes at a time: whatever ends a run (a quote, an escape),
    /// a control character that must be refused, or a byte that is not ASCII is found
    /// at every position of a word and across words.
    @Test(arguments: [
        (#"\""#, "\""), (#"\\"#, "\\"), (#"\u0041"#, "A"), ("é", "é"), ("\u{7F}", "\u{7F}"), (" ", " "),
    ])
    func everyPositionOfALongString(special: String, text: String) throws {
        for length in 0..<20 {
            for position in 0...length {
                let filler = String(repeating: "a", count: length)
                let json = "\"" + filler.prefix(position) + special + filler.dropFirst(position) + "\""
                #expect(try JSONValue.parse(json) == .string(filler.prefix(position) + text + filler.dropFirst(position)), "\(json)")
                let control = "\"" + filler.prefix(position) + "\u{1F}" + filler.dropFirst(position) + "\""
                #expect(throws: JSONParseError.self) { try JSONValue.parse(control) }
                let bytes = Array(("\"" + filler.prefix(position)).utf8) + [0xFF] + Array((filler.dropFirst(position) + "\"").utf8)
                #expect(throws: JSONParseError(offset: 1, reason: "the string is not valid UTF-8")) { try JSONValue.parse(bytes: bytes) }
            }
            let unterminated = "\"" + String(repeating: "b", count: length)
            #expect(throws: JSONParseError.self) { try JSONValue.parse(unterminated) }
        }
    }

    @Test(arguments: [("[", "]"), ("{\"a\":", "}")])
    func nestingIsBounded(open: String, close: String) throws {
        let limit = JSONValue.maximumDepth
        let deepest = String(repeating: open, count: limit) + "1" + String(repeating: close, count: limit)
        #expect(try JSONValue.parse(deepest).serialized() == deepest)
        let tooDeep = String(repeating: open, count: limit + 1) + "1" + String(repeating: close, count: limit + 1)
        #expect(throws: JSONParseError(offset: limit * open.utf8.count, reason: "arrays and objects nest deeper than 512 levels")) {
            try JSONValue.parse(tooDeep)
        }
        // A hostile line far deeper than the bound fails the same way instead of exhausting the stack.
        #expect(throws: JSONParseError.self) { try JSONValue.parse(String(repeating: open, count: 1_000_000)) }
    }

    /// A document cut anywhere is an error (or, for a bare number, a shorter number); glued back
    /// together it parses as the whole.
    @Test(arguments: [
        #"{"event":"tag.arrived","tag":{"uid":"04a2","writable":true},"ndef":null,"n":[1,-2.5e3,"é\u00e9\n"]}"#,
        #"[true,false,null,{"":""}]"#,
    ])
    func splitInputs(text: String) throws {
        let bytes = Array(text.utf8)
        let whole = try JSONValue.parse(bytes: bytes)
        for cut in 1..<bytes.count {
            #expect(throws: JSONParseError.self, "cut at \(cut)") { try JSONValue.parse(bytes: bytes[..<cut]) }
            #expect(throws: JSONParseError.self, "cut at \(cut)") { try JSONValue.parse(bytes: bytes[cut...]) }
            #expect(try JSONValue.parse(bytes: Array(bytes[..<cut]) + Array(bytes[cut...])) == whole)
        }
    }
}

import OrderedJSON
import Testing

/// `JSONReader.lazyValue()`: text exactly as the compact writer writes it is kept as
/// text and gives the value `parse` gives; any other text is built, and bad text
/// fails as it does for `parse`.
struct LazyValueTests {
    static func lazy(_ bytes: [UInt8]) throws(JSONParseError) -> LazyJSONValue {
        try bytes.withUnsafeBufferPointer { bytes in
            Result { () throws(JSONParseError) in try JSONReader.read(utf8: bytes) { reader throws(JSONParseError) in try reader.lazyValue() } }
        }.get()
    }

    static func lazy(_ text: String) throws(JSONParseError) -> LazyJSONValue { try lazy(Array(text.utf8)) }

    /// Values whose compact text covers every kind, every escape the writer makes, and the integer bounds.
    static let values: [JSONValue] = [
        nil, true, false, 0, -7, .int(Int64.max), .int(Int64.min), "", "plain", "é 東京 🚪 \u{2028}\u{7F}\u{80}",
        .string("quote \" backslash \\ slash / nl \n cr \r tab \t nul \u{0} bell \u{7} bs \u{8} ff \u{C} us \u{1F}"),
        [], [:], [1, [2, [3]], ["a": nil]],
        ["records": [["tnf": 1, "type": "U", "id": "", "payload_hex": "04", "uri": "https://example.com/a"],
                     ["tnf": 5, "json": ["nested": ["deep": [true, nil, -1]]], "": "empty key"]]],
    ]

    @Test(arguments: values)
    func writtenTextIsKeptAsItIs(value: JSONValue) throws {
        let text = value.serialized()
        let lazy = try Self.lazy(text)
        guard case .text(let kept) = lazy else { Issue.record("\(text) was built, not kept"); return }
        #expect(kept.utf8 == Array(text.utf8))
        #expect(lazy.value == value)
        #expect(kept.value == value)  // built once, the same again
        #expect(lazy == .value(value) && LazyJSONValue.value(value) == lazy)
        #expect(lazy.isNull == (value == .null))
        var writer = JSONWriter()
        writer.write(lazy)
        #expect(writer.text == text)
    }

    /// Text the writer would spell differently is built: the same value, written as the writer writes it.
    @Test(arguments: [
        "[ 1]", "[1 ]", "{\"a\" :1}", "{\"a\": 1}", "{ }", "[\n]",
        #""\/""#, #""\u0041""#, #""\b""#, #""\f""#, #""\u001F""#, #""\u000a""#, #""\u0009""#, #""\u000d""#, #""\u0100""#,
        "1.0", "1e3", "-0", "9223372036854775808", "-9223372036854775809", "[1.5]",
        #"{"a":1,"a":2}"#, #"{"a":{"b":1,"b":1}}"#, #"[{"k":1},{"k":1,"k":2}]"#,
        "{" + (0...32).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + "}",
    ])
    func otherTextIsBuilt(text: String) throws {
        let lazy = try Self.lazy(text)
        guard case .value(let value) = lazy else { Issue.record("\(text) was kept as text"); return }
        #expect(value == (try JSONValue.parse(text)))
        var writer = JSONWriter()
        writer.write(lazy)
        #expect(writer.text == value.serialized())
    }

    /// The most members an object kept as text may have is 32.
    @Test func thirtyTwoMembersAreKept() throws {
        let text = "{" + (0..<32).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + "}"
        guard case .text = try Self.lazy(text) else { Issue.record("32 members were built"); return }
    }

    /// Bad text fails with `parse`'s error, at its offset.
    @Test(arguments: [
        "", "{", #"{"a" 1}"#, #"{"a":1 "b":2}"#, "[1,]", "[1 2]", "01", "[01]", "1.", "-", "-a", "tru", "[nul]", "\"abc",
        "\"a\nb\"", #""\x""#, #""\u12g4""#, #""\ud83c""#, #""\"#, "{} x", "NaN", "[1]]",
    ])
    func badTextFailsAsItDoesForParse(text: String) {
        #expect(throws: JSONParseError.self) { try Self.lazy(text) }
        do {
            _ = try JSONValue.parse(text)
        } catch {
            #expect(throws: error) { try Self.lazy(text) }
        }
    }

    @Test(arguments: [[0x22, 0xC3, 0x28, 0x22], [0x5B, 0x22, 0xFF, 0x22, 0x5D], [0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D]] as [[UInt8]])
    func invalidUTF8FailsAsItDoesForParse(bytes: [UInt8]) {
        do {
            _ = try JSONValue.parse(bytes: bytes)
            Issue.record("parsed")
        } catch {
            #expect(throws: error) { try Self.lazy(bytes) }
        }
    }

    /// The nesting bound holds for text that would be kept: as deep as `parse` allows is kept, deeper fails as there.
    @Test func nestingIsBoundedAsForParse() throws {
        let limit = JSONValue.maximumDepth
        let deepest = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        guard case .text = try Self.lazy(deepest) else { Issue.record("the deepest text was built"); return }
        let tooDeep = String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)
        #expect(throws: JSONParseError(offset: limit, reason: "arrays and objects nest deeper than 512 levels")) { try Self.lazy(tooDeep) }
    }

    /// A pretty writer indents a value kept as text as it indents a built one.
    @Test func aPrettyWriterIndentsTheValue() throws {
        let value: JSONValue = ["records": [["tnf": 1]]]
        var writer = JSONWriter(pretty: true)
        writer.write(try Self.lazy(value.serialized()))
        #expect(writer.text == value.serialized(pretty: true))
    }

    /// A tree built through a member sink holds the value; the writer's members hold the text.
    @Test func membersTakeTheValueOrTheText() throws {
        let value: JSONValue = ["records": [["type": "T", "text": "a\"b"]]]
        let lazy = try Self.lazy(value.serialized())
        var object = JSONObject()
        object.member("ndef", lazy)
        #expect(object["ndef"] == value)
        var writer = JSONWriter()
        writer.writeObject { $0.member("ndef", lazy) }
        #expect(writer.text == #"{"ndef":"# + value.serialized() + "}")
    }
}

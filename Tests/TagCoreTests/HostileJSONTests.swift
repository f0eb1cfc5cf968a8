import OrderedJSON
import Testing

/// Event lines and exec-plugin answers are parsed with `JSONValue.parse`; a hostile
/// line nesting 40,000 arrays or objects must be an error, not a stack overflow.
@Test(arguments: ["[", "{\"a\":"])
func deeplyNestedJSONIsAnError(_ opening: String) {
    #expect(throws: JSONParseError.self) { try JSONValue.parse(String(repeating: opening, count: 40_000)) }
}

@Test func nestingAsDeepAsTheParserAllowsRoundTrips() throws {
    let text = String(repeating: "[", count: 400) + "1" + String(repeating: "]", count: 400)
    #expect(try JSONValue.parse(text).serialized() == text)
}

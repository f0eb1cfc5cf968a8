import OrderedJSON
import Testing

/// Reading a format member by member: `null` is absent, a wrong type names its path.
@Suite struct FieldsTests {
    static let document: JSONValue = [
        "name": "front", "count": 3, "flag": .null, "open": true,
        "items": [["id": "a"], ["id": 7]], "inner": ["deep": ["n": -1]],
    ]

    @Test func readsMembersAndTreatsNullAsAbsent() throws {
        let fields = try JSONFields(Self.document)
        #expect(try fields.string("name") == "front")
        #expect(try fields.int("count", in: 0...5) == 3)
        #expect(try fields.bool("open") == true)
        #expect(try fields.bool("flag") == nil && !fields.contains("flag"))
        #expect(try fields.string("absent") == nil)
        #expect(try fields.object("inner")?.object("deep")?.int("n") == -1)
    }

    @Test(arguments: [
        ("name", "count: expected a whole number from 0 to 2, got a number (3)"),
        ("items", #"items[1].id: expected a string, got a number (7)"#),
        ("inner", "inner.deep.n: expected a whole number, 0 or more, got a number (-1)"),
        ("open", #"name: expected true or false, got a string ("front")"#),
    ])
    func errorsNameThePathAndWhatWasExpected(_ member: String, _ message: String) throws {
        let fields = try JSONFields(Self.document)
        let error = #expect(throws: JSONFieldError.self) {
            switch member {
            case "name": _ = try fields.int("count", in: 0...2)
            case "items": _ = try fields.objects("items") { item throws(JSONFieldError) in try item.string("id") }
            case "inner": _ = try fields.object("inner")?.object("deep")?.int("n", in: 0...Int.max)
            default: _ = try fields.bool("name")
            }
        }
        #expect(error?.description == message)
    }

    @Test func aMissingMemberAndANonObjectSayWhatWasExpected() {
        #expect(JSONFieldError.missing("tags[0].type", expected: "the tag's type").description == #"missing "tags[0].type": the tag's type"#)
        #expect(throws: JSONFieldError(path: "", expected: "an object", got: [1])) { try JSONFields([1]) }
        #expect(JSONFieldError(path: "", expected: "an object", got: [1]).description == "expected an object, got an array")
        #expect(JSONFieldError(path: "big", expected: "x", got: .string(String(repeating: "y", count: 100))).description
            == #"big: expected x, got a string (""# + String(repeating: "y", count: 40) + #"")"#)
    }
}

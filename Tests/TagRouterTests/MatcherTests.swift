import OrderedJSON
import TagCore
import Testing

@testable import TagRouter

/// Compiles a `match:` section written as YAML.
func matcher(_ yaml: String) throws(ConfigErrors) -> Matcher {
    try Matcher(ConfigValue.parse(yaml, spec: MatchSpec.spec, path: "match", file: "m.yaml"))
}

/// The problems a `match:` section is rejected with (empty when it compiles).
func matchProblems(_ yaml: String) -> [String] {
    do {
        _ = try matcher(yaml)
        return []
    } catch {
        return error.errors.map(\.description)
    }
}

@Suite struct MatcherTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let match: String
        let event: TagEvent
        let expected: Bool
        var testDescription: String { "\(match) → \(expected)" }
    }

    static let smartPoster: [JSONValue] = [
        ["tnf": 1, "type": "T", "text": "first"],
        ["tnf": 2, "type": "text/plain", "mime_type": "text/plain", "text": "mime text"],
        ["tnf": 1, "type": "Sp", "smart_poster": ["uri": "https://poster.example"]],
        ["tnf": 4, "type": "android.com:pkg", "package": "com.spotify.music"],
        ["tnf": 2, "type": "application/json", "mime_type": "application/json"],
        ["tnf": 1, "type": "T", "text": "second"],
    ]

    static let cases: [Case] = [
        Case(match: "{}", event: tagEvent(), expected: true),
        Case(match: "{}", event: TagEvent(kind: .tagRemoved, reader: "door"), expected: false),
        Case(match: "event: [tag.removed, reader.error]", event: TagEvent(kind: .tagRemoved, reader: "door"), expected: true),
        Case(match: "uri: \"spotify:*\"", event: tagEvent(uri: "spotify:track:1"), expected: true),
        Case(match: "uri: \"spotify:*\"", event: tagEvent(uri: "https://spotify.com"), expected: false),
        Case(match: "uri: \"spotify:*\"", event: tagEvent(), expected: false),
        Case(match: "uri: [\"http://*\", \"https://*\"]", event: tagEvent(uri: "https://a"), expected: true),
        Case(match: "uri: \"https://a?c\"", event: tagEvent(uri: "https://abc"), expected: true),
        Case(match: "uri: \"https://a?c\"", event: tagEvent(uri: "https://abbc"), expected: false),
        Case(match: "uri_regex: \"track:[0-9]+$\"", event: tagEvent(uri: "spotify:track:42"), expected: true),
        Case(match: "uri_regex: \"^track\"", event: tagEvent(uri: "spotify:track:42"), expected: false),
        Case(match: "text: \"Cheek*\"", event: tagEvent(text: "Cheek to Cheek"), expected: true),
        Case(match: "text_regex: \"to\"", event: tagEvent(text: "Cheek to Cheek"), expected: true),
        Case(match: "uid: \"04:A2:24:B2:C3:5E:80\"", event: tagEvent(uid: "04a224b2c35e80"), expected: true),
        Case(match: "uid: \"04-a2-24-b2-c3-5e-80\"", event: tagEvent(uid: "04a224b2c35e80"), expected: true),
        Case(match: "uid: \"04 A2 24 B2 C3 5E 80\"", event: tagEvent(uid: "04a224b2c35e80"), expected: true),
        Case(match: "uid: [\"0411\", \"04a224b2c35e80\"]", event: tagEvent(uid: "04a224b2c35e80"), expected: true),
        Case(match: "uid: \"04a224b2c35e81\"", event: tagEvent(uid: "04a224b2c35e80"), expected: false),
        Case(match: "tag_id: \"a1b2-c3\"", event: tagEvent(uri: "https://www.home-assistant.io/tag/a1b2-c3"), expected: true),
        Case(match: "tag_id: \"04:A2:24:B2:C3:5E:80\"", event: tagEvent(uri: "https://www.home-assistant.io/tag/xyz"), expected: true),
        Case(match: "tag_id: \"04A224B2C35E80\"", event: tagEvent(), expected: true),
        Case(match: "tag_id: \"04-A2-24-B2-C3-5E-80\"", event: tagEvent(), expected: true),
        Case(match: "tag_id: \"04:a2:24:b2:c3:5e:80\"", event: tagEvent(), expected: true),
        Case(match: "tag_id: \"04-A2-24-B2-C3-5E-81\"", event: tagEvent(), expected: false),
        Case(match: "tag_id: \"front-door\"", event: tagEvent().following(.tagRemoved, dwellMs: 0), expected: false),
        Case(
            match: "{event: tag.removed, tag_id: front-door}",
            event: tagEvent(uri: "https://www.home-assistant.io/tag/front-door").following(.tagRemoved, dwellMs: 0), expected: true),
        Case(match: "reader: \"front-*\"", event: tagEvent(reader: "front-door"), expected: true),
        Case(match: "reader: \"front-*\"", event: tagEvent(reader: "back-door"), expected: false),
        Case(match: "tag_type: [ntag213, ntag215]", event: tagEvent(type: "ntag215"), expected: true),
        Case(match: "tag_type: \"mifare-*\"", event: tagEvent(type: "ntag215"), expected: false),
        Case(match: "text: second", event: tagEvent(text: "first", records: smartPoster), expected: false),
        Case(match: "{text: second, records: any}", event: tagEvent(text: "first", records: smartPoster), expected: true),
        Case(match: "{text: \"mime text\", records: any}", event: tagEvent(text: "first", records: smartPoster), expected: false),
        Case(match: "{uri: \"https://poster*\", records: any}", event: tagEvent(records: smartPoster), expected: true),
        Case(match: "mime: \"text/*\"", event: tagEvent(records: smartPoster), expected: true),
        Case(match: "mime: \"application/json\"", event: tagEvent(records: smartPoster), expected: false),
        Case(match: "{mime: \"application/json\", records: any}", event: tagEvent(records: smartPoster), expected: true),
        Case(match: "record: {tnf: 1, type: T}", event: tagEvent(records: smartPoster), expected: true),
        Case(match: "record: {tnf: 4}", event: tagEvent(records: smartPoster), expected: false),
        Case(match: "{record: {tnf: 4, type: \"android.com:*\"}, records: any}", event: tagEvent(records: smartPoster), expected: true),
        Case(match: "{record: {tnf: [2, 3], type: T}, records: any}", event: tagEvent(records: smartPoster), expected: false),
        Case(match: "json: {tag.type: ntag215, reader: door}", event: tagEvent(), expected: true),
        Case(match: "json: {tag.nfc_forum_type: 2}", event: tagEvent(), expected: true),
        Case(match: "json: {ndef.records.3.package: \"com.spotify.*\"}", event: tagEvent(records: smartPoster), expected: true),
        Case(match: "json: {tag.type: [mifare-classic-1k, ntag216]}", event: tagEvent(), expected: false),
        Case(match: "json: {missing.path: x}", event: tagEvent(), expected: false),
        Case(match: "{uri: \"spotify:*\", reader: desk}", event: tagEvent(uri: "spotify:x", reader: "door"), expected: false),
    ]

    @Test(arguments: cases) func matches(_ example: Case) throws {
        #expect(try matcher(example.match).matches(example.event) == example.expected)
    }

    @Test func badPatternsAreLoadErrors() {
        #expect(matchProblems("uid: [\"0411\", \"0x0g\"]") == ["m.yaml:1:15: match.uid: '0x0g' is not a tag UID: 'g' is not a hex digit"])
        #expect(matchProblems("record: {tnf: 9}") == ["m.yaml:1:15: match.record.tnf: expected an integer from 0 to 7, got 9"])
        #expect(matchProblems("text_regex: \"[a\"")[0].hasPrefix("m.yaml:1:13: match.text_regex: invalid regular expression '[a'"))
        #expect(matchProblems("records: all") == ["m.yaml:1:10: match.records: expected first or any, got \"all\""])
    }

    @Test func globs() {
        #expect(Glob("*").matches(""))
        #expect(Glob("a*b*c").matches("aXXbYYc"))
        #expect(!Glob("a*b*c").matches("aXXbYY"))
        #expect(Glob("**x").matches("x"))
        #expect(Glob("?").matches("é"))
        #expect(!Glob("abc").matches("ABC"))
    }
}

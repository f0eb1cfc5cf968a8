import OrderedJSON
import TagCore
import Testing

/// An event line is read member by member (`init(jsonUTF8:)`, behind `init(jsonText:)`),
/// never built as an object; it must read exactly as the parsed JSON value does
/// (`init(json:)`), errors included.
struct EventDecodingTests {
    static let lines: [String] = [
        #"{"event":"tag.arrived","id":"x","time":"2026-11-29T15:42:52.123Z","reader":"door","tag":{"uid":"04a224","uid_dashed":"04-A2-24","type":"ntag215","nfc_forum_type":2,"atqa":"0044","sak":"00","ndef_capacity":492,"writable":true,"name":"abbey","groups":["music"]},"tag_id":"04-A2-24","ndef":{"records":[{"tnf":1,"type":"U","uri":"https://a"}]},"uri":"https://a","text":"Hi"}"#,
        // A repeated member keeps its last value, in the event and in its tag; a repeated tag is replaced whole.
        #"{"id":"1","id":"2","tag":{"uid":"0411","type":"a"},"tag":{"uid":"0422"},"reader":"r"}"#,
        #"{"id":"1","tag":{"uid":"0411","type":"a","type":"b"}}"#,
        #"{"id":"1","tag":"x","tag":{"uid":"0411"}}"#,
        // Escaped names are the names they spell.
        #"{"id":"1","t\u0061g":{"\u0075id":"0411"},"\u0065vent":"tag.removed","dwell_ms":5}"#,
        // Unknown members, camelCase ones from before v1 too, are skipped whatever they hold.
        #"{"id":"1","reader":"r","dwellMs":7,"extra":{"deep":[1,{"a":null}]},"tag":{"uid":"0411","nfcForumType":2,"more":[true]}}"#,
        #"  {"id":"1","tag":null,"ndef":null,"tag_id":"ha-id"}  "#,
        #"{"id":"1","reader":"caf\u00e9","text":"\ud83d\ude00","uri":"é"}"#,
        // Errors: the same message either way.
        #"{"id":"1","tag":"x"}"#,
        #"{"id":"1","tag":{"type":"x"}}"#,
        #"{"id":"1","event":"tag.gone"}"#,
        #"{"id":"1","time":"yesterday"}"#,
        #"["id"]"#,
        #""event""#,
        #"{"id":"1","tag":{"uid":"0411",}}"#,
        #"{"id":"1"} x"#,
        #"{"id":"1","tag":{"uid":"04\x"}}"#,
        "{\"id\":\"1\",\"r\u{00e9}ader\":\"\u{00e9}\"}",
    ]

    /// The event read, or the message it was refused with.
    static func outcome(_ read: () throws -> TagEvent) -> Result<TagEvent, Refusal> {
        do { return .success(try read()) } catch { return .failure(Refusal(message: "\(error)")) }
    }

    struct Refusal: Error, Equatable, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    @Test(arguments: lines)
    func readingTheTextIsReadingItsValue(line: String) {
        let fromText = Self.outcome { try TagEvent(jsonText: line) }
        let parsed = Self.outcome { () throws -> TagEvent in
            do { return try TagEvent(json: try JSONValue.parse(line)) } catch let error as JSONParseError { throw Refusal(message: "not JSON: \(error.description)") }
        }
        switch (fromText, parsed) {
        case (.success(var text), .success(var value)):
            // Made-up ids and times differ; everything read must not.
            if !line.contains(#""id""#) { (text.id, value.id) = ("", "") }
            if !line.contains(#""time""#) { text.time = value.time }
            #expect(text == value)
        case (.failure(let text), .failure(let value)):
            #expect(text == value)
        default:
            Issue.record("the text gave \(fromText), its value \(parsed)")
        }
    }

    @Test func membersAreReadByName() throws {
        let event = try TagEvent(jsonText: Self.lines[1])
        #expect(event.id == "2" && event.reader == "r" && event.tag?.uid.hex == "0422" && event.tag?.type == "unknown")
        let escaped = try TagEvent(jsonText: Self.lines[4])
        #expect(escaped.kind == .tagRemoved && escaped.tag?.uid.hex == "0411" && escaped.dwellMs == 5)
        #expect(try TagEvent(jsonText: Self.lines[6]).presenceTagID == "ha-id")
    }

    /// A keyboard-wedge reader's assumed removal keeps its mark through a node's MQTT hop (written, read, written).
    @Test func anAssumedRemovalReadsBackAsAssumed() throws {
        var removed = TagEvent(kind: .tagRemoved, reader: "box", tag: TagInfo(uid: TagUID(bytes: [4, 0xa2]), type: "unknown"), dwellMs: 0)
        removed.removalAssumed = true
        let text = removed.jsonText
        #expect(text.contains(#""dwell_ms":0,"removal_assumed":true"#))
        #expect(try TagEvent(jsonText: text).removalAssumed)
        #expect(try !TagEvent(jsonText: #"{"event":"tag.removed","reader":"r","removal_assumed":false}"#).removalAssumed)
    }
}

extension EventDecodingTests {
    /// A member name that is not UTF-8 is refused where the parsed value refuses it.
    @Test func aNameThatIsNotUTF8IsTheSameError() {
        let bytes: [UInt8] = Array(#"{"id":"1",""#.utf8) + [0xFF] + Array(#"":1}"#.utf8)
        let fromBytes = bytes.withUnsafeBufferPointer { line in Result { () throws(EventDecodingError) in try TagEvent(jsonUTF8: line) } }
        let parsed = Result { () throws(JSONParseError) in try JSONValue.parse(bytes: bytes) }
        guard case .failure(let parseError) = parsed, case .failure(let eventError) = fromBytes else {
            Issue.record("accepted: \(parsed), \(fromBytes)")
            return
        }
        #expect(eventError.description == "not JSON: \(parseError.description)")
    }
}

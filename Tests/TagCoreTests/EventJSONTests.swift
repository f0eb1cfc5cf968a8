import Foundation
import OrderedJSON
import TagCore
import Testing

/// Event JSON in format v1: written and read back by the same code, time from the epoch.
struct EventJSONTests {
    static let tag = TagInfo(uid: TagUID(bytes: [0x04, 0xA2, 0x24]), type: "ntag215", nfcForumType: 2, atqa: [0, 0x44], sak: 0, ndefCapacity: 492, writable: true)
    static let time = Date(timeIntervalSince1970: 1_764_431_372.123)

    static let events: [TagEvent] = [
        TagEvent(kind: .tagArrived, id: "a", time: time, reader: "door", tag: tag,
                 ndef: ["records": [["tnf": 1, "type": "T", "id": "", "payload_hex": "02656e4869", "text": "Hi", "lang": "en", "encoding": "UTF-8"]]],
                 uri: "https://example.com/a", text: "Hi"),
        TagEvent(kind: .tagArrived, id: "b", time: time, reader: "door", tag: TagInfo(uid: TagUID(bytes: [1, 2]), type: "type4"),
                 ndefError: "tag removed during read"),
        TagEvent(kind: .tagRemoved, id: "c", time: time, reader: "door", tag: tag, dwellMs: 1200),
        TagEvent(kind: .readerConnected, id: "d", time: time, reader: "door"),
        TagEvent(kind: .readerDisconnected, id: "e", time: time, reader: "door", message: "device unplugged"),
        TagEvent(kind: .readerError, id: "f", time: time, reader: "door", message: "timeout"),
    ]

    @Test(arguments: events)
    func readingGivesBackWhatWasWritten(event: TagEvent) throws {
        #expect(try TagEvent(jsonText: event.json.serialized()) == event)
    }

    @Test func membersAreSnakeCaseInTheDocumentedOrder() {
        let arrived = Self.events[0].json.serialized()
        #expect(arrived == #"{"event":"tag.arrived","id":"a","time":"2025-11-29T15:49:32.123Z","reader":"door","#
            + #""tag":{"uid":"04a224","uid_dashed":"04-A2-24","type":"ntag215","nfc_forum_type":2,"atqa":"0044","sak":"00","ndef_capacity":492,"writable":true},"#
            + #""tag_id":"04-A2-24","ndef":{"records":[{"tnf":1,"type":"T","id":"","payload_hex":"02656e4869","text":"Hi","lang":"en","encoding":"UTF-8"}]},"#
            + #""uri":"https://example.com/a","text":"Hi"}"#)
        #expect(Self.events[2].json.serialized().hasSuffix(#""tag_id":"04-A2-24","dwell_ms":1200}"#))
        #expect(Self.events[1].json.serialized().hasSuffix(#""ndef":null,"ndef_error":"tag removed during read"}"#))
    }

    @Test func nullTagAndNDEFReadAsAbsent() throws {
        let event = try TagEvent(jsonText: #"{"event":"tag.arrived","reader":"r","tag":null,"ndef":null}"#)
        #expect(event.tag == nil && event.ndef == nil)
    }

    @Test func namesFromBeforeVersion1AreIgnored() throws {
        let event = try TagEvent(jsonText: #"{"event":"tag.removed","reader":"r","tag":{"uid":"0411","nfcForumType":2},"dwellMs":5,"ndefError":"x"}"#)
        #expect(event.dwellMs == nil && event.ndefError == nil && event.tag?.nfcForumType == nil)
    }

    /// `tag.sun` and `tag.genuine` say a tag is verified or genuine: only this daemon's own
    /// checks may. Read from outside (the default) they are ignored; read back from the
    /// daemon's own record (`trust: .ownRecord`, its spool) they are kept.
    @Test func sunAndGenuineAreReadOnlyFromTheDaemonsOwnRecord() throws {
        var tag = Self.tag
        tag.sun = SUNCheck(uid: "04a224", counter: 7, failure: nil)
        tag.genuine = .genuine
        let verified = TagEvent(kind: .tagArrived, id: "v", time: Self.time, reader: "door", tag: tag)
        tag.sun = SUNCheck(uid: nil, counter: nil, failure: .macMismatch)
        tag.genuine = .unknown
        let refused = TagEvent(kind: .tagArrived, id: "r", time: Self.time, reader: "door", tag: tag)
        for event in [verified, refused] {
            let fromOutside = try TagEvent(json: event.json)
            #expect(fromOutside.tag?.sun == nil && fromOutside.tag?.genuine == nil)
            #expect(try TagEvent(json: event.json, trust: .ownRecord) == event)
        }
    }

    /// An own record whose `tag.sun` or `tag.genuine` this daemon could not have written is refused, naming it;
    /// from outside the same members are ignored.
    @Test(arguments: [
        (#""sun":{"verified":true,"reason":"mac-mismatch"}"#, "tag.sun"), (#""sun":{"verified":false}"#, "tag.sun"),
        (#""sun":{"verified":false,"reason":"forged"}"#, "tag.sun.reason"), (#""sun":"yes""#, "tag.sun"),
        (#""genuine":"maybe""#, "tag.genuine"), (#""genuine":1"#, "tag.genuine"),
    ])
    func anImpossibleVerdictInAnOwnRecordIsRefused(member: String, named: String) throws {
        let json = try JSONValue.parse(#"{"event":"tag.arrived","reader":"r","tag":{"uid":"04a224",\#(member)}}"#)
        let fromOutside = try TagEvent(json: json)
        #expect(fromOutside.tag?.sun == nil && fromOutside.tag?.genuine == nil)
        let error = #expect(throws: EventDecodingError.self) { try TagEvent(json: json, trust: .ownRecord) }
        #expect(error?.description.hasPrefix(named + ":") == true, "\(String(describing: error))")
    }

    struct Time: Sendable, CustomStringConvertible {
        var seconds: Double
        var text: String
        var description: String { text }
    }

    @Test(arguments: [
        Time(seconds: 0, text: "1970-01-01T00:00:00.000Z"),
        Time(seconds: 1_764_431_372.123, text: "2025-11-29T15:49:32.123Z"),
        Time(seconds: 951_782_400.999, text: "2000-02-29T00:00:00.999Z"),
        Time(seconds: 4_107_542_399.5, text: "2100-02-28T23:59:59.500Z"),
        Time(seconds: -1.001, text: "1969-12-31T23:59:58.999Z"),
        Time(seconds: 253_402_300_799, text: "9999-12-31T23:59:59.000Z"),
    ])
    func timeIsWrittenAndReadInUTCMilliseconds(_ time: Time) throws {
        let event = TagEvent(kind: .readerConnected, time: Date(timeIntervalSince1970: time.seconds), reader: "r")
        #expect(event.json["time"] == .string(time.text))
        let read = try TagEvent(jsonText: #"{"event":"reader.connected","time":"\#(time.text)"}"#)
        #expect(abs(read.time.timeIntervalSince1970 - time.seconds) < 0.0005)
    }

    /// Foundation's formatter agrees with the integer arithmetic over many dates.
    @Test func timeAgreesWithFoundation() {
        let format = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        for step in -300...700 {
            // Half-way between two milliseconds, so neither side's rounding of the double matters.
            let seconds = Double(step) * 7_654_321 + Double((step * 37) & 511) / 1000 + 0.0005
            let date = Date(timeIntervalSince1970: seconds)
            #expect(TagEvent(kind: .readerConnected, time: date, reader: "r").json["time"] == .string(date.formatted(format)))
        }
    }

    @Test(arguments: ["2025-11-29T16:49:32.123+01:00", "2025-11-29T15:49:32Z", "2025-11-29T15:49:32.123456Z"])
    func otherISO8601SpellingsAreRead(text: String) throws {
        let read = try TagEvent(jsonText: #"{"time":"\#(text)"}"#)
        #expect(abs(read.time.timeIntervalSince1970 - 1_764_431_372.123) < 0.2)
    }

    @Test(arguments: ["2025-13-01T00:00:00.000Z", "2025-11-29", "yesterday"])
    func impossibleTimesAreRejected(text: String) {
        #expect(throws: EventDecodingError.self) { try TagEvent(jsonText: #"{"time":"\#(text)"}"#) }
    }
}

import Foundation
import OrderedJSON
import TagCore
import Testing

/// `jsonText`, written straight from the event's fields, is byte for byte the text of
/// the `json` tree: for every event kind, every optional member, and text that needs escaping.
struct EventJSONTextTests {
    static let named = TagInfo(uid: TagUID(bytes: [0x04, 0xA2, 0x24]), type: "ntag215", name: "front \"door\"\n", groups: ["family", "é 🌍\u{2028}"])

    static let events: [TagEvent] = EventJSONTests.events + [
        TagEvent(kind: .tagArrived, id: "g", time: EventJSONTests.time, reader: "door\t1", tag: named,
                 ndef: ["records": [["tnf": 1, "type": "T", "text": "a\\b\u{1}\u{7f}"]]], uri: "tel:+1", text: "\u{0}", node: "node \"2\""),
        TagEvent(kind: .tagRemoved, id: "h", time: EventJSONTests.time, reader: "r", tag: TagInfo(uid: TagUID(bytes: [1]), type: "t", groups: ["g"]),
                 dwellMs: Int(Int32.max), presenceTagID: "ha-tag-id"),
        TagEvent(kind: .tagArrived, id: "i", time: EventJSONTests.time, reader: "r"),
    ]

    @Test(arguments: events)
    func textIsTheTreesText(event: TagEvent) throws {
        #expect(event.jsonText == event.json.serialized())
        #expect(try JSONValue.parse(event.jsonText) == event.json)
    }

    @Test func writingIntoAWriterAppendsTheSameText() {
        var writer = JSONWriter(capacity: 16)
        for event in Self.events {
            event.write(to: &writer)
            writer.append(raw: UInt8(ascii: "\n"))
        }
        #expect(writer.text == Self.events.map { $0.json.serialized() + "\n" }.joined())
    }
}

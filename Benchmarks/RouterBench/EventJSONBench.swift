import BenchSupport
import Foundation
import OrderedJSON
import TagCore

/// Event → JSON text: microseconds per event for a tag.arrived with a URI and a Text
/// record, beside Foundation's JSONSerialization writing the same members (its
/// time from `Date.ISO8601FormatStyle`), in the same run. Best of three rounds.
enum EventJSONBench {
    static let event = TagEvent(
        kind: .tagArrived, id: "8b1f0c52-5b8e-4f5c-9d7e-0c2f3a1b4d6e", reader: "front-door",
        tag: TagInfo(uid: TagUID(bytes: [4, 0xa2, 0x24, 0xb2, 0xc3, 0x5e, 0x80]), type: "ntag215", nfcForumType: 2,
                     atqa: [0, 0x44], sak: 0, ndefCapacity: 492, writable: true),
        ndef: ["records": [
            ["tnf": 1, "type": "U", "id": "", "payload_hex": "046578616d706c652e636f6d2f61", "uri": "https://example.com/a"],
            ["tnf": 1, "type": "T", "id": "", "payload_hex": "02656e436865656b20746f20436865656b", "text": "Cheek to Cheek", "lang": "en", "encoding": "UTF-8"],
        ]],
        uri: "https://example.com/a", text: "Cheek to Cheek")

    /// `event.jsonText`, what the actions publish: written straight from the event's fields.
    static func tagrouter() -> Double {
        microseconds { event.jsonText.utf8.count }
    }

    /// `router-bench --event-json-calls N [tree]`: N conversions and nothing else,
    /// untimed, for callgrind (docs/development/profiling.md): two counts' difference over the
    /// difference of N is the instructions per event, start-up excluded. `tree`:
    /// through the `JSONValue` tree (`event.json.serialized()`, the `log` action's way).
    static func calls(_ count: Int, tree: Bool) -> Int {
        var bytes = 0
        for _ in 0..<count { bytes &+= (tree ? event.json.serialized() : event.jsonText).utf8.count }
        return bytes
    }

    /// The same members as Foundation objects through JSONSerialization.
    static func foundation() -> Double {
        let format = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        return microseconds {
            var tag: [String: Any] = ["uid": event.tag!.uid.hex, "uid_dashed": event.tag!.uid.dashed, "type": event.tag!.type]
            tag["nfc_forum_type"] = event.tag!.nfcForumType
            tag["atqa"] = "0044"
            tag["sak"] = "00"
            tag["ndef_capacity"] = event.tag!.ndefCapacity
            tag["writable"] = event.tag!.writable
            let records: [[String: Any]] = [
                ["tnf": 1, "type": "U", "id": "", "payload_hex": "046578616d706c652e636f6d2f61", "uri": "https://example.com/a"],
                ["tnf": 1, "type": "T", "id": "", "payload_hex": "02656e436865656b20746f20436865656b", "text": "Cheek to Cheek", "lang": "en", "encoding": "UTF-8"],
            ]
            let object: [String: Any] = [
                "event": event.kind.rawValue, "id": event.id, "time": event.time.formatted(format), "reader": event.reader,
                "tag": tag, "tag_id": event.tagID!, "ndef": ["records": records], "uri": event.uri!, "text": event.text!,
            ]
            return (try? JSONSerialization.data(withJSONObject: object, options: [.withoutEscapingSlashes]).count) ?? 0
        }
    }

    /// Microseconds per call of `body`, from BenchSupport's best-of-three calls per second.
    private static func microseconds(_ body: () -> Int) -> Double {
        1e6 / measure(body)
    }
}

import OrderedJSON
import TagCore
import Testing

@testable import TagRouter

/// Events read back from JSON (`--events-from`, the spool, MQTT input) keep what they said.
@Suite struct EventJSONTests {
    @Test func aRemovalReadBackKeepsTheTagIDOfItsArrival() throws {
        let arrival = TagEvent(kind: .tagArrived, reader: "door", tag: TagInfo(uid: TagUID("04a224b2")!, type: "ntag215"), uri: TagEvent.homeAssistantTagPrefix + "front-door")
        let removal = arrival.following(.tagRemoved, dwellMs: 1200)
        #expect(removal.json["tag_id"] == "front-door")
        let readBack = try TagEvent(jsonText: removal.json.serialized())
        #expect(readBack.tagID == "front-door")
        #expect(readBack.json["tag_id"] == "front-door")
    }

    @Test func anEventWithoutTagIDGetsTheDashedUID() throws {
        let event = try TagEvent(jsonText: #"{"event": "tag.removed", "reader": "r", "tag": {"uid": "04a224b2"}}"#)
        #expect(event.tagID == "04-A2-24-B2")
    }
}

import Foundation
import OrderedJSON
import TagCore
import Testing

@Test(arguments: ["04:A2:24:B2", "04-a2-24-b2", "04 a2 24 b2", "04A224B2", "0x04a224b2", "0X04A224B2"])
func uidSpellingsAreEquivalent(spelling: String) throws {
    let uid = try #require(TagUID(spelling))
    #expect(uid.hex == "04a224b2")
    #expect(uid.dashed == "04-A2-24-B2")
}

/// A UID is read from the text it is part of (a member of a line, a config value), not only from a whole String.
@Test func aUIDIsReadFromPartOfAText() throws {
    let line = "uid=04:A2:24:B2;"
    let uid = try #require(TagUID(line.dropFirst(4).dropLast()))
    #expect(uid.hex == "04a224b2")
    #expect(TagUID(line.dropFirst(4)) == nil)
}

@Test(arguments: ["", "04:A", "zz", "04;a2", "0x", "x04", "0g", "04a\u{301}2", "０４"])
func invalidUIDsAreRejected(spelling: String) {
    #expect(TagUID(spelling) == nil)
}

@Test func arrivedEventHasDocumentedShape() {
    let uid = TagUID(bytes: [0x04, 0xA2, 0x24])
    let event = TagEvent(
        kind: .tagArrived, id: "e1", time: Date(timeIntervalSince1970: 0), reader: "door",
        tag: TagInfo(uid: uid, type: "ntag215", nfcForumType: 2, atqa: [0, 0x44], sak: 0, ndefCapacity: 492, writable: true),
        uri: TagEvent.homeAssistantTagPrefix + "abc-123")
    let json = event.json
    #expect(json["event"] == "tag.arrived")
    #expect(json["time"] == "1970-01-01T00:00:00.000Z")
    #expect(json.value(atPath: "tag.uid") == "04a224")
    #expect(json.value(atPath: "tag.uid_dashed") == "04-A2-24")
    #expect(json.value(atPath: "tag.atqa") == "0044")
    #expect(json["tag_id"] == "abc-123")
    #expect(json["ndef"] == .null)
}

@Test func tagIDFallsBackToUID() {
    let event = TagEvent(kind: .tagArrived, reader: "r", tag: TagInfo(uid: TagUID(bytes: [1, 2]), type: "x"), uri: "https://example.com")
    #expect(event.tagID == "01-02", "the ESPHome spelling")
}

import NDEF
import OrderedJSON
import TagCore
import Testing

@testable import ReaderLibNFC
@testable import TagReader

/// How a message read off a tag becomes the NDEF fields of `tag.arrived`.
@Suite struct TagReadoutTests {
    let info = TagInfo(uid: TagUID("04:A2:24:B2:C3:5E:80")!, type: "ntag215", nfcForumType: 2, atqa: [0x00, 0x44], sak: 0)

    @Test func uriAndTextRecordsFillTheEventFields() throws {
        var readout = TagReadout(info: info)
        readout.decode(message: NDEFMessage(records: [.uri("https://example.com/a"), .text("Cheek to Cheek")]).encoded())
        let event = readout.arrivedEvent(reader: "front-door").json
        #expect(event["uri"] == "https://example.com/a")
        #expect(event["text"] == "Cheek to Cheek")
        #expect(event.value(atPath: "ndef.records.0.uri") == "https://example.com/a")
        #expect(event.value(atPath: "ndef.records.1.lang") == "en")
        #expect(event["ndef_error"] == nil)
        #expect(event["tag_id"] == "04-A2-24-B2-C3-5E-80")
        #expect(event.value(atPath: "tag.uid_dashed") == "04-A2-24-B2-C3-5E-80")
    }

    @Test func recordFieldsKeepTheDocumentedOrder() throws {
        var readout = TagReadout(info: info)
        readout.decode(message: NDEFMessage(records: [.uri("https://example.com/a")]).encoded())
        let ndef = try #require(readout.arrivedEvent(reader: "r").json["ndef"])
        #expect(ndef.serialized() == #"{"records":[{"tnf":1,"type":"U","id":"","payload_hex":"046578616d706c652e636f6d2f61","uri":"https://example.com/a"}]}"#)
    }

    @Test func aHomeAssistantTagURLGivesTheTagID() {
        var readout = TagReadout(info: info)
        readout.decode(message: NDEFMessage(records: [.uri("https://www.home-assistant.io/tag/5f0ba733-172f-430d")]).encoded())
        #expect(readout.arrivedEvent(reader: "r").json["tag_id"] == "5f0ba733-172f-430d")
    }

    @Test func aDamagedMessageKeepsTheRecordsBeforeTheDamage() {
        let whole = NDEFMessage(records: [.uri("https://example.com/a"), .text("second")]).encoded()
        var readout = TagReadout(info: info)
        readout.decode(message: Array(whole.dropLast(3)))
        let event = readout.arrivedEvent(reader: "r").json
        #expect(event["uri"] == "https://example.com/a")
        #expect(event.value(atPath: "ndef.records.1") == nil)
        #expect(event["ndef_error"]?.stringValue?.hasPrefix("NDEF message: ") == true)
    }

    @Test func aBlankTagHasNullNDEFAndNoError() {
        var readout = TagReadout(info: info)
        readout.decode(message: [])
        let event = readout.arrivedEvent(reader: "r").json
        #expect(event["ndef"] == .null)
        #expect(event["ndef_error"] == nil)
    }

    @Test func aTagLeftMidReadSaysSo() {
        let target = NFCTarget(uid: info.uid, atqa: [0x00, 0x44], sak: 0)
        let event = TagReadout(info: target.info, ndefError: TagReadout.removedDuringRead).arrivedEvent(reader: "r").json
        #expect(event["ndef_error"] == "tag removed during read")
        #expect(event["ndef"] == .null)
    }
}

import NDEF
import OrderedJSON
import PN532Sim
import TagCore
import TagKit
import Testing

@testable import TagReader

/// Every tag model the simulator holds, read through libnfc: the type named from
/// ATQA/SAK/GET_VERSION/ATS, the UID in both spellings, capacity, writability and
/// the message.
@Suite(.serialized) struct TagIdentificationTests {
    static let uid7: [UInt8] = [0x04, 0xA2, 0x24, 0xB2, 0xC3, 0x5E, 0x80]
    static let uid4: [UInt8] = [0x74, 0x10, 0x37, 0x94]
    static let idm: [UInt8] = [0x01, 0x2E, 0x3A, 0x4B, 0x5C, 0x6D, 0x7E, 0x8F]
    static let message = NDEFMessage(records: [.uri("https://www.home-assistant.io/tag/door"), .text("hi")]).encoded()

    struct Case: Sendable, CustomTestStringConvertible {
        let tag: any SimulatedTag
        let type: String
        let forumType: Int?
        let uid: String
        let dashed: String
        let capacity: Int
        let writable: Bool
        var testDescription: String { type + (writable ? "" : " (read-only)") }
    }

    static let cases: [Case] = [
        Case(tag: try! Type2Tag(.ntag213, uid: uid7, message: message), type: "ntag213", forumType: 2, uid: "04a224b2c35e80", dashed: "04-A2-24-B2-C3-5E-80", capacity: 142, writable: true),
        Case(tag: try! Type2Tag(.ntag215, uid: uid7, message: message), type: "ntag215", forumType: 2, uid: "04a224b2c35e80", dashed: "04-A2-24-B2-C3-5E-80", capacity: 492, writable: true),
        Case(tag: try! Type2Tag(.ntag216, uid: uid7, message: message, readOnly: true), type: "ntag216", forumType: 2, uid: "04a224b2c35e80", dashed: "04-A2-24-B2-C3-5E-80", capacity: 868, writable: false),
        Case(tag: try! Type2Tag(.ultralight, uid: uid7, message: message), type: "mifare-ultralight", forumType: 2, uid: "04a224b2c35e80", dashed: "04-A2-24-B2-C3-5E-80", capacity: 46, writable: true),
        Case(tag: try! Type4Tag(uid: uid7, message: message), type: "type4", forumType: 4, uid: "04a224b2c35e80", dashed: "04-A2-24-B2-C3-5E-80", capacity: 2046, writable: true),
        Case(tag: try! MifareClassicTag(uid: uid4, message: message), type: "mifare-classic-1k", forumType: nil, uid: "74103794", dashed: "74-10-37-94", capacity: 716, writable: true),
        Case(tag: try! Type3Tag(idm: idm, message: message), type: "type3", forumType: 3, uid: "012e3a4b5c6d7e8f", dashed: "01-2E-3A-4B-5C-6D-7E-8F", capacity: 208, writable: true),
        // The PN532 reports the first four bytes of a Topaz UID.
        Case(tag: try! Type1Tag(uid: uid7, message: message), type: "type1", forumType: 1, uid: "04a224b2", dashed: "04-A2-24-B2", capacity: 90, writable: true),
    ]

    @Test(arguments: cases)
    func aPlacedTagIsIdentifiedAndRead(_ expected: Case) async throws {
        let sim = try PN532Simulator(pacing: .none)
        defer { sim.close() }
        sim.place(expected.tag)
        let supervisor = ReaderSupervisor(readers: [ReaderLoopTests.config(sim.connstring)], drivers: .underTest)
        defer { supervisor.stop() }
        let event = try await EventLog(supervisor).wait(for: 2)[1]
        let json = event.json
        #expect(event.kind == .tagArrived)
        #expect(json.value(atPath: "tag.type") == .string(expected.type))
        #expect(json.value(atPath: "tag.nfc_forum_type") == expected.forumType.map { .int(Int64($0)) })
        #expect(json.value(atPath: "tag.uid") == .string(expected.uid))
        #expect(json.value(atPath: "tag.uid_dashed") == .string(expected.dashed))
        let atqa = expected.tag.activation.atqa
        #expect(json.value(atPath: "tag.atqa") == (atqa.isEmpty ? nil : .string(TagUID(bytes: atqa).hex)))
        #expect(json.value(atPath: "tag.ndef_capacity") == .int(Int64(expected.capacity)))
        #expect(json.value(atPath: "tag.writable") == .bool(expected.writable))
        #expect(json["ndef_error"] == nil)
        #expect(json["uri"] == "https://www.home-assistant.io/tag/door")
        #expect(json["text"] == "hi")
        #expect(json["tag_id"] == "door")
    }

    @Test func aTagWithoutAMessageHasNullNDEF() async throws {
        let sim = try PN532Simulator(pacing: .none)
        defer { sim.close() }
        sim.place(try Type2Tag(.ntag213, uid: Self.uid7, message: []))
        let supervisor = ReaderSupervisor(readers: [ReaderLoopTests.config(sim.connstring)], drivers: .underTest)
        defer { supervisor.stop() }
        let json = try await EventLog(supervisor).wait(for: 2)[1].json
        #expect(json["ndef"] == .null)
        #expect(json["ndef_error"] == nil)
        #expect(json["uri"] == nil)
    }
}

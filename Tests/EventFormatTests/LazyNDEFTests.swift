import Foundation
import NDEF
import OrderedJSON
@testable import TagCore
import Testing
import TestSupport

/// An event line's `ndef` is kept as its text until something looks inside it: the
/// event read that way is the event read as a tree, on every NDEF conformance vector
/// (Tests/NDEFTests/Vectors), and is written back byte for byte.
@Suite struct LazyNDEFTests {
    /// One valid conformance vector's message, decoded as a reader decodes it.
    struct Message: Sendable, CustomStringConvertible {
        var name: String
        var ndef: JSONValue
        var description: String { name }
    }

    static let messages: [Message] = {
        let folder = BuiltProducts.packageRoot.appendingPathComponent("Tests/NDEFTests/Vectors")
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".json") }.sorted()
        return files.flatMap { file -> [Message] in
            guard let data = try? Data(contentsOf: folder.appendingPathComponent(file)),
                  case .array(let vectors)? = try? JSONValue.parse(bytes: data) else { return [] }
            return vectors.compactMap { vector in
                guard vector["valid"] == true, let name = vector["name"]?.stringValue, let hex = vector["message_hex"]?.stringValue,
                      let bytes = Hex.bytes(hex),
                      let message = try? NDEFMessage(bytes: bytes) else { return nil }
                return Message(name: "\(file)/\(name)", ndef: message.json)
            }
        }
    }()

    static func event(_ ndef: JSONValue) -> TagEvent {
        TagEvent(
            kind: .tagArrived, id: "lazy", time: Date(timeIntervalSince1970: 1_764_430_972.123), reader: "front-door",
            tag: TagInfo(uid: TagUID(bytes: [0x04, 0xA2, 0x24, 0xB2]), type: "ntag215", nfcForumType: 2), ndef: ndef, uri: "https://example.com/a")
    }

    @Test func everyMessageFileGivesMessages() {
        #expect(Self.messages.count >= 50)
    }

    @Test(arguments: messages)
    func theLazyEventIsTheEagerOne(message: Message) throws {
        let written = Self.event(message.ndef)
        let line = written.jsonText
        let lazy = try TagEvent(jsonText: line)
        let eager = try TagEvent(json: JSONValue.parse(line))
        guard case .text? = lazy.storedNDEF else { Issue.record("ndef was built while reading \(line)"); return }
        #expect(lazy == eager)
        #expect(lazy == written)
        #expect(lazy.jsonText == line)
        #expect(lazy.json == eager.json)
        #expect(lazy.ndef == message.ndef)
        #expect(lazy.json.serialized() == line)
    }

    /// An `ndef` member the writer would spell otherwise (spaces, other escapes, a
    /// number with a fraction) is built: the same event, written as the writer writes it.
    @Test(arguments: [
        #"{ "records" : [ ] }"#, #"{"records":[{"type":"\u0054","text":"a\/b"}]}"#, #"{"records":[{"tnf":1.0}]}"#,
        #"{"records":[],"records":[{"tnf":1}]}"#, "null", " null ",
    ])
    func otherTextIsTheSameEvent(ndef: String) throws {
        let line = #"{"event":"tag.arrived","id":"x","time":"2026-11-29T15:42:52.123Z","reader":"r","ndef":"# + ndef + "}"
        let lazy = try TagEvent(jsonText: line)
        let eager = try TagEvent(json: JSONValue.parse(line))
        #expect(lazy == eager)
        #expect(lazy.jsonText == eager.jsonText)
        #expect(lazy.ndef == (try JSONValue.parse(ndef)).unlessNullForTest)
    }

    /// Changing `ndef` of an event read as text writes the new value.
    @Test func aChangedNDEFIsWrittenAsChanged() throws {
        var event = try TagEvent(jsonText: Self.event(["records": []]).jsonText)
        event.ndef = ["records": [["tnf": 0]]]
        #expect(event.jsonText.contains(#""ndef":{"records":[{"tnf":0}]}"#))
        event.ndef = nil
        #expect(event.jsonText.contains(#""ndef":null"#))
    }
}

extension JSONValue {
    fileprivate var unlessNullForTest: JSONValue? { self == .null ? Optional.none : self }
}

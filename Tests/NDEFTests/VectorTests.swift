import Foundation
import NDEF
import OrderedJSON
import Testing

/// Every public vector: valid messages decode to exactly the listed fields and
/// re-encode byte for byte; malformed ones are rejected with the listed kind.
@Suite struct VectorTests {
    @Test func everyFileHasVectors() {
        #expect(Vector.messages.count >= 71)
        #expect(Vector.type2.count >= 11)
    }

    /// `decode --lines` writes records straight to text; `json` builds a tree: both read the same.
    @Test(arguments: Vector.messages.filter(\.valid))
    func recordsWrittenStraightMatchTheirJSON(_ vector: Vector) throws {
        for record in try NDEFMessage(bytes: vector.bytes).records {
            var writer = JSONWriter()
            writer.writeObject { record.writeMembers(into: &$0) }
            #expect(String(decoding: writer.bytes, as: UTF8.self) == record.json.serialized())
        }
    }

    @Test(arguments: Vector.messages)
    func decodes(_ vector: Vector) throws {
        let object = vector.object
        if !vector.valid {
            let expected = try #require(object["error"] as? String)
            #expect(throws: NDEFError.self) { try NDEFMessage(bytes: vector.bytes) }
            do {
                _ = try NDEFMessage(bytes: vector.bytes)
            } catch {
                #expect(error.kind.rawValue == expected, "\(error)")
                #expect(error.offset >= 0 && error.offset <= vector.bytes.count)
            }
            return
        }
        let message = try NDEFMessage(bytes: vector.bytes)
        let expected = try #require(object["records"] as? [[String: Any]])
        let ours = try #require(try foundationJSON(.array(message.records.map(\.json))) as? [[String: Any]])
        try #require(ours.count == expected.count)
        for (index, record) in expected.enumerated() {
            for (key, value) in record {
                #expect(jsonEqual(ours[index][key], value), "record \(index) key \(key): \(ours[index][key] ?? "missing") ≠ \(value)")
            }
        }
        if let json = object["json"] {
            let unknown = try #require(ours.first { $0["tnf"] as? Int == 5 })
            #expect(jsonEqual(unknown["json"], json))
        }
    }

    /// Encoding the raw fields reproduces the message (for vectors without chunks).
    @Test(arguments: Vector.messages.filter { $0.valid && !$0.name.contains("chunk") })
    func encodesRawFields(_ vector: Vector) throws {
        let recordsJSON = try JSONSerialization.data(withJSONObject: ["records": vector.object["records"] ?? []])
        let message = try NDEFMessage(vector: JSONValue.parse(bytes: recordsJSON))
        #expect(Hex.string(message.encoded()) == vector.object["message_hex"] as? String)
    }

    @Test(arguments: Vector.type2)
    func readsType2Memory(_ vector: Vector) throws {
        let object = vector.object
        let image = try #require(Hex.bytes(object["memory_hex"] as? String ?? ""))
        if vector.valid {
            let (_, content) = try Type2Memory.parse(image: image)
            #expect(Hex.string(content.ndefMessage) == object["ndef_hex"] as? String)
        } else {
            let expected = try #require(object["error"] as? String)
            #expect(throws: Type2Error.self) { try Type2Memory.parse(image: image) }
            do {
                _ = try Type2Memory.parse(image: image)
            } catch {
                #expect(error.kind.rawValue == expected, "\(error)")
            }
        }
    }

    /// A fresh image built from the vector's UID and message matches the vector's
    /// memory byte for byte where the vector is laid out that way (NDEF TLV first,
    /// then a Terminator when there is room).
    @Test(arguments: ["t2-ntag213-uri", "t2-ntag215-3byte-length", "t2-ntag216-large-multi",
                      "t2-ultralight-fills-data-area", "t2-ultralight-read-only"])
    func buildsType2Memory(_ name: String) throws {
        let vector = try #require(Vector.type2.first { $0.name == name })
        let object = vector.object
        let tagType = try #require(Type2TagType(name: object["tag_type"] as? String ?? ""))
        let image = try Type2Memory.image(uid: try #require(Hex.bytes(object["uid_hex"] as? String ?? "")),
                                          tagType: tagType,
                                          message: try #require(Hex.bytes(object["ndef_hex"] as? String ?? "")),
                                          readOnly: name.hasSuffix("read-only"))
        #expect(Hex.string(image) == object["memory_hex"] as? String)
    }
}

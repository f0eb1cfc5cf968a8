import Foundation
import NDEF
import OrderedJSON

/// One conformance vector, loaded from the bundled `Vectors/*.json` files.
struct Vector: Sendable, CustomStringConvertible {
    var file: String
    var name: String
    /// The vector object, re-serialized, for key-by-key comparison.
    var json: Data

    var description: String { "\(file)/\(name)" }

    var object: [String: Any] { (try? JSONSerialization.jsonObject(with: json)) as? [String: Any] ?? [:] }
    var bytes: [UInt8] { Hex.bytes(object["message_hex"] as? String ?? "") ?? [] }
    var valid: Bool { object["valid"] as? Bool ?? false }

    static func load(_ file: String) -> [Vector] {
        guard let folder = Bundle.module.url(forResource: "Vectors", withExtension: nil),
              let data = try? Data(contentsOf: folder.appendingPathComponent(file)),
              let array = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]] else { return [] }
        return array.compactMap { object in
            guard let name = object["name"] as? String,
                  let json = try? JSONSerialization.data(withJSONObject: object) else { return nil }
            return Vector(file: file, name: name, json: json)
        }
    }

    static let messageFiles = [
        "uri.json", "text.json", "smartposter.json", "mime.json", "wifi.json", "handover.json",
        "external.json", "absolute-uri.json", "empty-unknown-unchanged.json", "chunked.json",
        "multi-record.json", "custom-json-unknown.json", "malformed.json",
    ]

    static let messages: [Vector] = messageFiles.flatMap(load)
    static let type2: [Vector] = load("type2-memory.json")
}

/// Our JSON for a value, read back as Foundation objects for comparison with a vector.
func foundationJSON(_ value: JSONValue) throws -> Any {
    try JSONSerialization.jsonObject(with: Data(value.serialized().utf8), options: .fragmentsAllowed)
}

/// Deep equality of two Foundation JSON values.
func jsonEqual(_ lhs: Any?, _ rhs: Any?) -> Bool {
    switch (lhs, rhs) {
    case (nil, nil): return true
    case (is NSNull, is NSNull): return true
    case let (a as [String: Any], b as [String: Any]):
        return a.count == b.count && a.allSatisfy { jsonEqual($0.value, b[$0.key]) }
    case let (a as [Any], b as [Any]):
        return a.count == b.count && zip(a, b).allSatisfy { jsonEqual($0, $1) }
    case let (a as String, b as String): return a == b
    case let (a as NSNumber, b as NSNumber): return a == b
    default: return false
    }
}

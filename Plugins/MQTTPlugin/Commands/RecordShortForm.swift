import FoundationEssentials
import NDEF
import OrderedJSON
import TagCore

/// One record of an MQTT write request, in `tagrouter encode`'s terms:
/// `{"uri": …}`, `{"text": …, "lang": …}`, `{"mime": …, "data": …}`,
/// `{"json": {…} or "…"}`, `{"aar": …}`, `{"external": "domain:type", "data": …}`.
enum RecordShortForm {
    static let keys = ["uri", "text", "mime", "json", "aar", "external"]
    /// A record's TYPE_LENGTH is one byte (NFC Forum NDEF 1.0, 3.2.4): the longest mime or external type.
    static let maximumTypeLength = 255
    /// A Text record's language length is six bits (NFC Forum RTD Text 1.0, 3.2.1).
    static let maximumLanguageLength = 63

    /// The record `value` names; `place` says where it is in the request (`records[1]`).
    static func record(_ value: JSONValue, place: String) throws(TagJobRefusal) -> NDEFRecord {
        func string(_ key: String) throws(TagJobRefusal) -> String? {
            guard let member = value[key] else { return nil }
            guard let text = member.stringValue else { throw TagJobRefusal(.badRequest, "\(place).\(key) must be a string") }
            return text
        }
        let given = keys.filter { value[$0] != nil }
        guard given.count == 1, let kind = given.first else {
            throw TagJobRefusal(
                .badRequest, "\(place) must name one record kind (\(keys.joined(separator: ", "))), not \(given.isEmpty ? "none" : given.joined(separator: " and "))")
        }
        switch kind {
        case "uri": return .uri(try string("uri") ?? "")
        case "text":
            let lang = try string("lang") ?? "en"
            guard !lang.isEmpty, lang.utf8.count <= maximumLanguageLength else {
                throw TagJobRefusal(
                    .badRequest, "\(place).lang is \(lang.utf8.count) bytes; a Text record's language tag holds 1 to \(maximumLanguageLength) (such as en or de-CH)")
            }
            return .text(try string("text") ?? "", locale: lang)
        case "aar": return .androidApp(try string("aar") ?? "")
        case "json":
            if let text = value["json"]?.stringValue {
                guard (try? JSONValue.parse(text)) != nil else { throw TagJobRefusal(.badRequest, "\(place).json is a string that is not JSON") }
                return .json(text)
            }
            return .json(value["json"]?.serialized() ?? "null")
        default:
            guard let data = try string("data") else { throw TagJobRefusal(.badRequest, "\(place).\(kind) needs data (a string)") }
            let type = try string(kind) ?? ""
            guard !type.isEmpty, type.utf8.count <= maximumTypeLength else {
                throw TagJobRefusal(.badRequest, "\(place).\(kind) is \(type.utf8.count) bytes; a record's type holds 1 to \(maximumTypeLength)")
            }
            return kind == "mime" ? .mime(type, Array(data.utf8)) : .external(type, Array(data.utf8))
        }
    }
}

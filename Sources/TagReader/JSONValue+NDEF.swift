import NDEF
import TagCore

extension JSONValue {
    /// The NDEF module's JSON (records with their fields in the documented
    /// order) as an event value, order kept.
    init(_ json: NDEFJSON) {
        switch json {
        case .null: self = .null
        case .bool(let bool): self = .bool(bool)
        case .int(let int): self = .int(int)
        case .double(let double): self = .double(double)
        case .string(let string): self = .string(string)
        case .array(let elements): self = .array(elements.map(JSONValue.init))
        case .object(let members):
            var object = JSONObject()
            for (key, value) in members { object[key] = JSONValue(value) }
            self = .object(object)
        }
    }
}

import OrderedJSON

/// A filter after `|` in a template expression.
enum TemplateFilter: Sendable, Hashable {
    /// The value as JSON text (strings quoted, missing as `null`).
    case json
    /// Percent-encodes everything but RFC 3986 unreserved characters.
    case urlencode
    case upper
    case lower
    /// Replaces a missing, null or empty value.
    case defaultValue(String)

    static let names = ["json", "urlencode", "upper", "lower", "default"]

    func apply(to value: JSONValue?) -> JSONValue? {
        switch self {
        case .json:
            return .string((value ?? .null).serialized())
        case .urlencode:
            return value.map { .string(Self.percentEncode($0.plainText)) }
        case .upper:
            return value.map { .string($0.plainText.uppercased()) }
        case .lower:
            return value.map { .string($0.plainText.lowercased()) }
        case .defaultValue(let fallback):
            switch value {
            case nil, .null?, .string("")?: return .string(fallback)
            default: return value
            }
        }
    }

    private static func percentEncode(_ text: String) -> String {
        var output = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                output += "%" + (byte < 0x10 ? "0" : "") + hex
            }
        }
        return output
    }
}

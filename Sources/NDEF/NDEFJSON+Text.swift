/// JSON text for a value: members in order, `/` not escaped, non-finite numbers as `null`.
extension NDEFJSON {
    /// Compact JSON, or indented by two spaces with `pretty`.
    public func serialized(pretty: Bool = false) -> String {
        var output = ""
        write(to: &output, pretty: pretty, indent: 0)
        return output
    }

    /// The member `key` of an object, nil otherwise.
    public subscript(key: String) -> NDEFJSON? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    private func write(to output: inout String, pretty: Bool, indent: Int) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .int(let value): output += String(value)
        case .double(let value): output += value.isFinite ? String(value) : "null"
        case .string(let value): Self.quote(value, to: &output)
        case .array(let elements):
            writeContainer(elements.map { (nil, $0) }, open: "[", close: "]", to: &output, pretty: pretty, indent: indent)
        case .object(let members):
            writeContainer(members.map { ($0.key, $0.value) }, open: "{", close: "}", to: &output, pretty: pretty, indent: indent)
        }
    }

    private func writeContainer(_ items: [(String?, NDEFJSON)], open: String, close: String,
                                to output: inout String, pretty: Bool, indent: Int) {
        output += open
        guard !items.isEmpty else { return output += close }
        let inner = String(repeating: " ", count: (indent + 1) * 2)
        for (position, (key, value)) in items.enumerated() {
            if position > 0 { output += "," }
            if pretty { output += "\n" + inner }
            if let key {
                Self.quote(key, to: &output)
                output += pretty ? ": " : ":"
            }
            value.write(to: &output, pretty: pretty, indent: indent + 1)
        }
        if pretty { output += "\n" + String(repeating: " ", count: indent * 2) }
        output += close
    }

    private static func quote(_ text: String, to output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                output += "\\u00" + Hex.string([UInt8(scalar.value)])
            default:
                output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}

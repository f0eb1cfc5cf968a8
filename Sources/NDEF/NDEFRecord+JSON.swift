import OrderedJSON

/// A record as JSON in the vector format, fields in a fixed order: `tnf`,
/// `type`/`type_hex`, `id`/`id_hex`, `payload_hex`, then the fields of the record's
/// kind (`uri`; `text`, `lang`, `encoding`; `mime_type`; `smart_poster`; `wifi`;
/// `bluetooth`; `package`; `json`). This is the one place NDEF becomes JSON: the
/// `decode` command prints it and tag events carry it.
extension NDEFRecord {
    public var json: JSONValue {
        var fields = JSONObject(reservingCapacity: 8)
        fields["tnf"] = .int(Int64(tnf.rawValue))
        Self.setField(type, "type", in: &fields)
        Self.setField(id, "id", in: &fields)
        fields["payload_hex"] = .string(Hex.string(payload))
        switch content {
        case .uri(let uri), .absoluteURI(let uri):
            fields["uri"] = .string(uri)
        case .text(let text):
            fields["text"] = .string(text.text)
            fields["lang"] = .string(text.language)
            fields["encoding"] = .string(text.encoding.rawValue)
        case .smartPoster(let poster):
            fields["smart_poster"] = Self.json(poster)
        case .mime(let type, let text):
            fields["mime_type"] = .string(type)
            fields["text"] = text.map(JSONValue.string)
        case .wifi(let credential):
            fields["mime_type"] = .string(typeString)
            fields["wifi"] = [
                "ssid": .string(credential.ssid), "auth": .string(credential.authentication.name),
                "encryption": .string(credential.encryption.name), "key": .string(credential.key),
            ]
        case .bluetooth(let oob):
            fields["mime_type"] = .string(typeString)
            fields["bluetooth"] = ["address": .string(oob.address), "name": oob.name.map(JSONValue.string) ?? .null]
        case .androidApp(let package):
            fields["package"] = .string(package)
        case .unknown(let json?):
            fields["json"] = json
        case .invalid(let error):
            fields["error"] = .string(error.kind.rawValue)
        case .empty, .wellKnown, .external, .unknown(nil), .unchanged:
            break
        }
        return .object(fields)
    }

    /// `name` when every byte is printable ASCII, else `name_hex`.
    private static func setField(_ bytes: [UInt8], _ name: String, in fields: inout JSONObject) {
        if bytes.allSatisfy({ (0x20...0x7E).contains($0) }) {
            fields[name] = .string(String(decoding: bytes, as: UTF8.self))
        } else {
            fields[name + "_hex"] = .string(Hex.string(bytes))
        }
    }

    private static func json(_ poster: SmartPoster) -> JSONValue {
        [
            "uri": .string(poster.uri),
            "titles": .array(poster.titles.map { ["lang": .string($0.language), "text": .string($0.text)] }),
            "action": poster.action.map { .string($0.name) } ?? .null,
            "type": poster.type.map(JSONValue.string) ?? .null,
            "size": poster.size.map { .int(Int64($0)) } ?? .null,
        ]
    }
}

extension NDEFMessage {
    /// `{"records":[…]}`.
    public var json: JSONValue { ["records": .array(records.map(\.json))] }
}

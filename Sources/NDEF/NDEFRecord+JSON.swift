import OrderedJSON

/// A record as JSON in the vector format, fields in a fixed order: `tnf`,
/// `type`/`type_hex`, `id`/`id_hex`, `payload_hex`, then the fields of the record's
/// kind (`uri`; `text`, `lang`, `encoding`; `mime_type`; `smart_poster`; `wifi`;
/// `bluetooth`; `package`; `json`). This is the one place NDEF becomes JSON: the
/// `decode` command prints it and tag events carry it.
extension NDEFRecord {
    public var json: JSONValue {
        var fields = JSONObject(reservingCapacity: 8)
        writeMembers(into: &fields)
        return .object(fields)
    }

    /// The record's members, in order, into `sink`: a tree for `json`, or text
    /// written straight out (`decode --lines`).
    public func writeMembers(into sink: inout some JSONMemberSink) {
        sink.member("tnf", .int(Int64(tnf.rawValue)))
        Self.setField(type, "type", in: &sink)
        Self.setField(id, "id", in: &sink)
        sink.member("payload_hex", hex: payload)
        switch content {
        case .uri(let uri), .absoluteURI(let uri):
            sink.member("uri", string: uri)
        case .text(let text):
            sink.member("text", string: text.text)
            sink.member("lang", string: text.language)
            sink.member("encoding", string: text.encoding.rawValue)
        case .smartPoster(let poster):
            sink.member("smart_poster", Self.json(poster))
        case .mime(let type, let text):
            sink.member("mime_type", string: type)
            if let text { sink.member("text", string: text) }
        case .wifi(let credential):
            sink.member("mime_type", string: typeString)
            sink.member("wifi", [
                "ssid": .string(credential.ssid), "auth": .string(credential.authentication.name),
                "encryption": .string(credential.encryption.name), "key": .string(credential.key),
            ])
        case .bluetooth(let oob):
            sink.member("mime_type", string: typeString)
            sink.member("bluetooth", ["address": .string(oob.address), "name": oob.name.map(JSONValue.string) ?? .null])
        case .androidApp(let package):
            sink.member("package", string: package)
        case .unknown(let json?):
            sink.member("json", json)
        case .invalid(let error):
            sink.member("error", string: error.kind.rawValue)
        case .empty, .wellKnown, .external, .unknown(nil), .unchanged:
            break
        }
    }

    /// `name` when every byte is printable ASCII, else `name_hex`.
    private static func setField(_ bytes: [UInt8], _ name: String, in sink: inout some JSONMemberSink) {
        if bytes.allSatisfy({ (0x20...0x7E).contains($0) }) {
            sink.member(name, string: String(decoding: bytes, as: UTF8.self))
        } else {
            sink.member(name + "_hex", hex: bytes)
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

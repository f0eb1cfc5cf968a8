/// A record as JSON in the vector format, fields in a fixed order: `tnf`,
/// `type`/`type_hex`, `id`/`id_hex`, `payload_hex`, then the fields of the record's
/// kind (`uri`; `text`, `lang`, `encoding`; `mime_type`; `smart_poster`; `wifi`;
/// `bluetooth`; `package`; `json`).
extension NDEFRecord {
    public var json: NDEFJSON {
        var fields: [(key: String, value: NDEFJSON)] = [("tnf", .int(Int64(tnf.rawValue)))]
        fields.append(Self.field(type, "type"))
        fields.append(Self.field(id, "id"))
        fields.append(("payload_hex", .string(Hex.string(payload))))
        switch content {
        case .uri(let uri), .absoluteURI(let uri):
            fields.append(("uri", .string(uri)))
        case .text(let text):
            fields += [("text", .string(text.text)), ("lang", .string(text.language)), ("encoding", .string(text.encoding.rawValue))]
        case .smartPoster(let poster):
            fields.append(("smart_poster", Self.json(poster)))
        case .mime(let type, let text):
            fields.append(("mime_type", .string(type)))
            if let text { fields.append(("text", .string(text))) }
        case .wifi(let credential):
            fields.append(("mime_type", .string(typeString)))
            fields.append(("wifi", .object([
                ("ssid", .string(credential.ssid)), ("auth", .string(credential.authentication.name)),
                ("encryption", .string(credential.encryption.name)), ("key", .string(credential.key)),
            ])))
        case .bluetooth(let oob):
            fields.append(("mime_type", .string(typeString)))
            fields.append(("bluetooth", .object([("address", .string(oob.address)), ("name", oob.name.map(NDEFJSON.string) ?? .null)])))
        case .androidApp(let package):
            fields.append(("package", .string(package)))
        case .unknown(let json?):
            fields.append(("json", json))
        case .invalid(let error):
            fields.append(("error", .string(error.kind.rawValue)))
        case .empty, .wellKnown, .external, .unknown(nil), .unchanged:
            break
        }
        return .object(fields)
    }

    /// `name` when every byte is printable ASCII, else `name_hex`.
    private static func field(_ bytes: [UInt8], _ name: String) -> (key: String, value: NDEFJSON) {
        if bytes.allSatisfy({ (0x20...0x7E).contains($0) }) {
            return (name, .string(String(decoding: bytes, as: UTF8.self)))
        }
        return (name + "_hex", .string(Hex.string(bytes)))
    }

    private static func json(_ poster: SmartPoster) -> NDEFJSON {
        .object([
            ("uri", .string(poster.uri)),
            ("titles", .array(poster.titles.map { .object([("lang", .string($0.language)), ("text", .string($0.text))]) })),
            ("action", poster.action.map { .string($0.name) } ?? .null),
            ("type", poster.type.map(NDEFJSON.string) ?? .null),
            ("size", poster.size.map { .int(Int64($0)) } ?? .null),
        ])
    }
}

extension NDEFMessage {
    /// `{"records":[…]}`.
    public var json: NDEFJSON { .object([("records", .array(records.map(\.json)))]) }
}

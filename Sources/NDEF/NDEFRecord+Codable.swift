/// JSON in the vector format: raw fields (`tnf`, `type`/`type_hex`, `id`/`id_hex`,
/// `payload_hex`) then the semantic fields of the record's kind (`uri`, `text`,
/// `lang`, `encoding`, `mime_type`, `smart_poster`, `wifi`, `bluetooth`, `package`,
/// `json`). Decoding reads the raw fields only.
extension NDEFRecord: Codable {
    enum Key: String, CodingKey {
        case tnf, type, id, payload = "payload_hex", typeHex = "type_hex", idHex = "id_hex"
        case uri, text, lang, encoding, mimeType = "mime_type", smartPoster = "smart_poster"
        case wifi, bluetooth, package, json, error
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        let tnfValue = try container.decode(UInt8.self, forKey: .tnf)
        guard let tnf = TNF(rawValue: tnfValue) else {
            throw DecodingError.dataCorruptedError(forKey: .tnf, in: container, debugDescription: "TNF must be 0…6")
        }
        func field(_ text: Key, _ hex: Key) throws -> [UInt8] {
            if let hexText = try container.decodeIfPresent(String.self, forKey: hex) {
                guard let bytes = Hex.bytes(hexText) else {
                    throw DecodingError.dataCorruptedError(forKey: hex, in: container, debugDescription: "not hex")
                }
                return bytes
            }
            return Array((try container.decodeIfPresent(String.self, forKey: text) ?? "").utf8)
        }
        self.init(tnf: tnf, type: try field(.type, .typeHex), id: try field(.id, .idHex), payload: try field(.payload, .payload))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(tnf.rawValue, forKey: .tnf)
        try Self.encode(type, as: .type, orHex: .typeHex, in: &container)
        try Self.encode(id, as: .id, orHex: .idHex, in: &container)
        try container.encode(Hex.string(payload), forKey: .payload)
        switch content {
        case .uri(let uri), .absoluteURI(let uri):
            try container.encode(uri, forKey: .uri)
        case .text(let text):
            try container.encode(text.text, forKey: .text)
            try container.encode(text.language, forKey: .lang)
            try container.encode(text.encoding.rawValue, forKey: .encoding)
        case .smartPoster(let poster):
            try container.encode(SmartPosterFields(poster), forKey: .smartPoster)
        case .mime(let type, let text):
            try container.encode(type, forKey: .mimeType)
            try container.encodeIfPresent(text, forKey: .text)
        case .wifi(let credential):
            try container.encode(typeString, forKey: .mimeType)
            try container.encode(WiFiFields(credential), forKey: .wifi)
        case .bluetooth(let oob):
            try container.encode(typeString, forKey: .mimeType)
            try container.encode(BluetoothFields(oob), forKey: .bluetooth)
        case .androidApp(let package):
            try container.encode(package, forKey: .package)
        case .unknown(let json?):
            try container.encode(json, forKey: .json)
        case .invalid(let error):
            try container.encode(error.kind.rawValue, forKey: .error)
        case .empty, .wellKnown, .external, .unknown(nil), .unchanged:
            break
        }
    }

    /// A field as text when every byte is printable ASCII, else as `…_hex`.
    private static func encode(_ bytes: [UInt8], as text: Key, orHex hex: Key,
                               in container: inout KeyedEncodingContainer<Key>) throws {
        if bytes.allSatisfy({ (0x20...0x7E).contains($0) }) {
            try container.encode(String(decoding: bytes, as: UTF8.self), forKey: text)
        } else {
            try container.encode(Hex.string(bytes), forKey: hex)
        }
    }
}

/// `{"records": […]}`.
extension NDEFMessage: Codable {
    enum Key: String, CodingKey { case records }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        self.init(records: try container.decode([NDEFRecord].self, forKey: .records))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(records, forKey: .records)
    }
}

/// `smart_poster`: every key present, absent values as null.
private struct SmartPosterFields: Encodable {
    struct Title: Encodable { var lang: String, text: String }
    var uri: String
    var titles: [Title]
    var action: String?
    var type: String?
    var size: UInt32?

    init(_ poster: SmartPoster) {
        uri = poster.uri
        titles = poster.titles.map { Title(lang: $0.language, text: $0.text) }
        action = poster.action?.name
        type = poster.type
        size = poster.size
    }

    enum CodingKeys: CodingKey { case uri, titles, action, type, size }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(uri, forKey: .uri)
        try container.encode(titles, forKey: .titles)
        try container.encode(action, forKey: .action)
        try container.encode(type, forKey: .type)
        try container.encode(size, forKey: .size)
    }
}

/// `wifi`: `{"ssid", "auth", "encryption", "key"}`.
private struct WiFiFields: Encodable {
    var ssid: String, auth: String, encryption: String, key: String

    init(_ credential: WiFiCredential) {
        ssid = credential.ssid
        auth = credential.authentication.name
        encryption = credential.encryption.name
        key = credential.key
    }
}

/// `bluetooth`: `{"address", "name"}`, name null when absent.
private struct BluetoothFields: Encodable {
    var address: String, name: String?

    init(_ oob: BluetoothOOB) {
        address = oob.address
        name = oob.name
    }

    enum CodingKeys: CodingKey { case address, name }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(address, forKey: .address)
        try container.encode(name, forKey: .name)
    }
}

/// Plain JSON, object members in their order.
extension NDEFJSON: Encodable {
    private struct MemberKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .object(let members):
            var container = encoder.container(keyedBy: MemberKey.self)
            for member in members { try container.encode(member.value, forKey: MemberKey(stringValue: member.key)) }
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(element) }
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .int(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .double(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        }
    }
}

import OrderedJSON

/// Codable in the vector format: encoding writes `json` (raw fields, then the
/// fields of the record's kind); decoding reads the raw fields only.
extension NDEFRecord: Codable {
    enum Key: String, CodingKey {
        case tnf, type, id, payload = "payload_hex", typeHex = "type_hex", idHex = "id_hex"
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
        try json.encode(to: encoder)
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

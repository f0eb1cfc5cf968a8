import OrderedJSON

extension NDEFRecord {
    /// Reads a record in the vector format: its raw fields only (`tnf`, `type` or
    /// `type_hex`, `id` or `id_hex`, `payload_hex`); the fields of its kind are ignored.
    public init(vector fields: JSONFields) throws(JSONFieldError) {
        guard let value = try fields.int("tnf", in: 0...6), let tnf = TNF(rawValue: UInt8(value)) else {
            throw .missing(fields.path(of: "tnf"), expected: "the record's TNF (0 to 6)")
        }
        func field(_ text: String, _ hex: String) throws(JSONFieldError) -> [UInt8] {
            if let hexText = try fields.string(hex) {
                guard let bytes = Hex.bytes(hexText) else {
                    throw JSONFieldError(path: fields.path(of: hex), expected: "hex digits", got: .string(hexText))
                }
                return bytes
            }
            return Array((try fields.string(text) ?? "").utf8)
        }
        self.init(tnf: tnf, type: try field("type", "type_hex"), id: try field("id", "id_hex"), payload: try field("payload_hex", "payload_hex"))
    }
}

extension NDEFMessage {
    /// Reads `{"records": […]}`, each record in the vector format.
    public init(vector value: JSONValue) throws(JSONFieldError) {
        let fields = try JSONFields(value, what: #"an object {"records": […]}"#)
        guard let records = try fields.objects("records", NDEFRecord.init(vector:)) else {
            throw .missing("records", expected: "an array of records")
        }
        self.init(records: records)
    }
}

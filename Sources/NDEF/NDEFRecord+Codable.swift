import OrderedJSON

/// Encodable in the vector format: a record encodes as its `json` (raw fields,
/// then the fields of the record's kind).
extension NDEFRecord: Encodable {
    public func encode(to encoder: any Encoder) throws {
        try json.encode(to: encoder)
    }
}

/// `{"records": […]}`.
extension NDEFMessage: Encodable {
    public func encode(to encoder: any Encoder) throws {
        try JSONValue.object(JSONObject(["records": .array(records.map(\.json))])).encode(to: encoder)
    }
}

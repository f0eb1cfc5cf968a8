import NDEF

/// How `decode` turns bytes into one JSON document: a message or a Type 2 image,
/// strict or lenient.
struct DecodeOptions {
    var memory: Bool
    var lenient: Bool
    var pretty: Bool

    /// A decoding failure: the vector-format kind, the byte offset, the explanation.
    struct Failure: Error {
        var kind: String
        var offset: Int
        var message: String

        var cliError: CLIError { .data("\(kind) at byte \(offset): \(message)") }
    }

    /// The JSON text for `bytes`: `{"cc":…,"tlvs":[…]}` first for a memory image,
    /// `records`, and `error` in lenient mode.
    func decode(_ bytes: [UInt8]) -> Result<String, Failure> {
        var document: [(key: String, value: NDEFJSON)] = []
        var messageBytes = bytes
        var base = 0
        if memory {
            do {
                let (cc, content) = try Type2Memory.parse(image: bytes)
                document.append(("cc", .object([
                    ("magic", .string(Hex.string([cc.magic]))), ("version", .string("\(cc.version >> 4).\(cc.version & 0x0F)")),
                    ("size", .int(Int64(cc.dataAreaSize))), ("readOnly", .bool(cc.readOnly)),
                ])))
                document.append(("tlvs", .array(content.tlvs.map {
                    .object([("tag", .string($0.tag.name)), ("offset", .int(Int64($0.offset))), ("length", .int(Int64($0.length)))])
                })))
                messageBytes = content.ndefMessage
                base = content.ndefOffset
            } catch {
                return .failure(Failure(kind: error.kind.rawValue, offset: error.offset, message: error.detail))
            }
        }
        var records: [NDEFRecord] = []
        var problem: NDEFJSON?
        if memory && messageBytes.isEmpty {
            records = []
        } else if lenient {
            let (message, error) = NDEFMessage.decodeLenient(messageBytes)
            records = message.records
            problem = error.map {
                Self.problem(kind: $0.kind.rawValue, offset: $0.offset + base, record: $0.recordIndex.map { $0 + 1 }, message: $0.detail)
            }
        } else {
            do {
                records = try NDEFMessage(bytes: messageBytes).records
            } catch {
                return .failure(Failure(kind: error.kind.rawValue, offset: error.offset + base, message: Self.explanation(error)))
            }
        }
        document.append(("records", .array(records.map(\.json))))
        if let problem { document.append(("error", problem)) }
        return .success(NDEFJSON.object(document).serialized(pretty: pretty))
    }

    /// `{"line":N,"error":{"kind","offset","message"}}` for `--lines`.
    func errorLine(_ line: Int, _ failure: Failure) -> String {
        errorLine(line, kind: failure.kind, offset: failure.offset, message: failure.message)
    }

    func errorLine(_ line: Int, kind: String, offset: Int, message: String) -> String {
        NDEFJSON.object([("line", .int(Int64(line))), ("error", Self.problem(kind: kind, offset: offset, record: nil, message: message))])
            .serialized(pretty: pretty)
    }

    /// `record 2: URI identifier code 0x24 is not defined`.
    static func explanation(_ error: NDEFError) -> String {
        error.recordIndex.map { "record \($0 + 1): \(error.detail)" } ?? error.detail
    }

    private static func problem(kind: String, offset: Int, record: Int?, message: String) -> NDEFJSON {
        var fields: [(key: String, value: NDEFJSON)] = [("kind", .string(kind)), ("offset", .int(Int64(offset)))]
        if let record { fields.append(("record", .int(Int64(record)))) }
        fields.append(("message", .string(message)))
        return .object(fields)
    }
}

import NDEF
import OrderedJSON

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

    /// The JSON document for `bytes`: `{"cc":…,"tlvs":[…]}` first for a memory image,
    /// `records`, and `error` in lenient mode.
    func decode(_ bytes: [UInt8]) -> Result<JSONValue, Failure> {
        var document = JSONObject()
        var messageBytes = bytes
        var base = 0
        if memory {
            do {
                let (cc, content) = try Type2Memory.parse(image: bytes)
                document["cc"] = [
                    "magic": .string(Hex.string([cc.magic])), "version": .string("\(cc.version >> 4).\(cc.version & 0x0F)"),
                    "size": .int(Int64(cc.dataAreaSize)), "readOnly": .bool(cc.readOnly),
                ]
                document["tlvs"] = .array(content.tlvs.map {
                    ["tag": .string($0.tag.name), "offset": .int(Int64($0.offset)), "length": .int(Int64($0.length))]
                })
                messageBytes = content.ndefMessage
                base = content.ndefOffset
            } catch {
                return .failure(Failure(kind: error.kind.rawValue, offset: error.offset, message: error.detail))
            }
        }
        var records: [NDEFRecord] = []
        var problem: JSONValue?
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
        document["records"] = .array(records.map(\.json))
        document["error"] = problem
        return .success(.object(document))
    }

    /// `{"line":N,"error":{"kind","offset","message"}}` for `--lines`.
    func errorLine(_ line: Int, _ failure: Failure) -> JSONValue {
        errorLine(line, kind: failure.kind, offset: failure.offset, message: failure.message)
    }

    func errorLine(_ line: Int, kind: String, offset: Int, message: String) -> JSONValue {
        ["line": .int(Int64(line)), "error": Self.problem(kind: kind, offset: offset, record: nil, message: message)]
    }

    /// `record 2: URI identifier code 0x24 is not defined`.
    static func explanation(_ error: NDEFError) -> String {
        error.recordIndex.map { "record \($0 + 1): \(error.detail)" } ?? error.detail
    }

    private static func problem(kind: String, offset: Int, record: Int?, message: String) -> JSONValue {
        var fields = JSONObject(["kind": .string(kind), "offset": .int(Int64(offset))])
        fields["record"] = record.map { .int(Int64($0)) }
        fields["message"] = .string(message)
        return .object(fields)
    }
}

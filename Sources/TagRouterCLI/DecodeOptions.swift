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

    /// What `bytes` decoded to: the memory image's members (`cc`, `tlvs`) when
    /// `memory`, the records, and in lenient mode the problem that stopped decoding.
    struct Decoded {
        var memoryMembers = JSONObject()
        var records: [NDEFRecord] = []
        var problem: JSONValue?

        /// The document's members in order: `{"cc":…,"tlvs":[…]}` first for a memory image, `records`, then `error`.
        func writeMembers(into sink: inout some JSONMemberSink) {
            for (key, value) in memoryMembers { sink.member(key, value) }
            sink.member("records", objects: records) { record, members in record.writeMembers(into: &members) }
            if let problem { sink.member("error", problem) }
        }
    }

    /// The JSON document for `bytes` (see `Decoded`).
    func decode(_ bytes: [UInt8]) -> Result<JSONValue, Failure> {
        decoded(bytes).map { decoded in
            var document = JSONObject()
            decoded.writeMembers(into: &document)
            return .object(document)
        }
    }

    /// Decodes `bytes`: a message or a Type 2 image, strict or lenient.
    func decoded(_ bytes: [UInt8]) -> Result<Decoded, Failure> {
        var decoded = Decoded()
        var messageBytes = bytes
        var base = 0
        if memory {
            do {
                let (cc, content) = try Type2Memory.parse(image: bytes)
                decoded.memoryMembers["cc"] = [
                    "magic": .string(Hex.string([cc.magic])), "version": .string("\(cc.version >> 4).\(cc.version & 0x0F)"),
                    "size": .int(Int64(cc.dataAreaSize)), "readOnly": .bool(cc.readOnly),
                ]
                decoded.memoryMembers["tlvs"] = .array(content.tlvs.map {
                    ["tag": .string($0.tag.name), "offset": .int(Int64($0.offset)), "length": .int(Int64($0.length))]
                })
                messageBytes = content.ndefMessage
                base = content.ndefOffset
            } catch {
                return .failure(Failure(kind: error.kind.rawValue, offset: error.offset, message: error.detail))
            }
        }
        if memory && messageBytes.isEmpty {
            decoded.records = []
        } else if lenient {
            let (message, error) = NDEFMessage.decodeLenient(messageBytes)
            decoded.records = message.records
            decoded.problem = error.map {
                Self.problem(kind: $0.kind.rawValue, offset: $0.offset + base, record: $0.recordIndex.map { $0 + 1 }, message: $0.detail)
            }
        } else {
            do {
                decoded.records = try NDEFMessage(bytes: messageBytes).records
            } catch {
                return .failure(Failure(kind: error.kind.rawValue, offset: error.offset + base, message: Self.explanation(error)))
            }
        }
        return .success(decoded)
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

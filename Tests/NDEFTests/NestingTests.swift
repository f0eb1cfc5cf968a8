import NDEF
import Testing

/// Smart Posters nest NDEF messages; a hostile tag nests them thousands deep. The
/// decoder must give `ndef-nesting-too-deep` instead of running out of stack.
@Suite struct NestingTests {
    /// A message of a URI record and, unless `depth` is 0, a Smart Poster whose payload
    /// is the message one level less deep. The nested message is the last bytes of its parent's.
    static func nested(depth: Int) -> [UInt8] {
        var message = NDEFMessage(records: [.uri("a:")]).encoded()
        for _ in 0..<depth {
            message = NDEFMessage(records: [.uri("a:"), NDEFRecord(tnf: .wellKnown, type: Array("Sp".utf8), payload: message)]).encoded()
        }
        return message
    }

    @Test(arguments: [1, 2, NDEFMessage.maximumNestingDepth])
    func nestingUpToTheLimitDecodes(_ depth: Int) throws {
        let message = try NDEFMessage(bytes: Self.nested(depth: depth))
        #expect(message.records.count == 2)
        #expect(message.firstURI == "a:")
        guard case .smartPoster(let poster) = message.records[1].content else {
            Issue.record("record 2 is not a Smart Poster: \(message.records[1].content)")
            return
        }
        #expect(poster.uri == "a:")
    }

    @Test(arguments: [NDEFMessage.maximumNestingDepth + 1, 100, 1000, 8000])
    func deeperNestingIsAnErrorAtTheTooDeepMessage(_ depth: Int) throws {
        let bytes = Self.nested(depth: depth)
        let tooDeep = bytes.count - Self.nested(depth: depth - NDEFMessage.maximumNestingDepth - 1).count
        let expected = NDEFError(.ndefNestingTooDeep, at: tooDeep, record: 1,
                                 "Smart Posters nest more than \(NDEFMessage.maximumNestingDepth) messages deep")
        #expect(throws: expected) { try NDEFMessage(bytes: bytes) }
        #expect(throws: expected) { try NDEFMessage(bytes: bytes[...]) }  // the generic path

        let (salvaged, error) = NDEFMessage.decodeLenient(bytes)
        #expect(salvaged.records == [.uri("a:")])
        #expect(error == expected)
    }

    /// A hand-built record is decoded on demand; its nesting is bounded the same way.
    @Test func aHandBuiltDeepRecordReadsAsInvalid() throws {
        let record = NDEFRecord(tnf: .wellKnown, type: Array("Sp".utf8), payload: Self.nested(depth: 5000))
        guard case .invalid(let error) = record.content else {
            Issue.record("decoded: \(record.content)")
            return
        }
        #expect(error.kind == .ndefNestingTooDeep)
        #expect(NDEFMessage(records: [record]).firstURI == nil)
    }
}

import NDEF
import Testing

/// Errors say which record and byte, and lenient decoding keeps the records before the damage.
@Suite struct ErrorTests {
    @Test func descriptionNamesRecordAndByte() throws {
        let bytes = Hex.bytes("91010455026162635101045524616263")!  // record 2 has URI code 0x24
        let error = try #require(NDEFMessage.decodeLenient(bytes).error)
        #expect(error == NDEFError(.uriBadPrefixCode, at: 12, record: 1, "URI identifier code 0x24 is not defined"))
        #expect(error.description == "record 2 at byte 12: URI identifier code 0x24 is not defined")
        #expect(NDEFMessage.decodeLenient(bytes).message.records == [.uri("https://www.abc")])
    }

    @Test(arguments: [
        ("", NDEFError.Kind.emptyMessage, 0),
        ("d1", .truncatedHeader, 0),
        ("d101ff55", .truncatedPayload, 3),
        ("d0010055", .emptyRecordWithType, 1),
        ("d8000001aa", .emptyRecordWithID, 3),
        ("d0000100", .emptyRecordWithPayload, 2),
        ("d1000100", .missingType, 1),
        ("d5010078", .unknownRecordWithType, 1),
        ("b10101556151000162", .badChunkSequence, 5),
        ("b1010155615e0001016962", .badChunkSequence, 5),
        ("d1010055", .uriBadPrefixCode, 4),
        ("d101035500fffe", .uriBadUTF8, 5),
        ("d101015400", .textBadLangLength, 4),
        ("d10102540565", .textBadLangLength, 4),
        ("d101045402656eff", .textBadEncoding, 7),
        ("d00000d00000", .trailingBytes, 3),
    ])
    func kindAndOffset(_ hex: String, _ kind: NDEFError.Kind, _ offset: Int) throws {
        let bytes = try #require(Hex.bytes(hex))
        #expect(throws: NDEFError.self) { try NDEFMessage(bytes: bytes) }
        let error = try #require(NDEFMessage.decodeLenient(bytes).error)
        #expect(error.kind == kind, "\(error)")
        #expect(error.offset == offset, "\(error)")
    }

    /// A chunk sequence cut by the damage is dropped; the records before it stay.
    @Test func lenientDropsAnUnfinishedChunkSequence() throws {
        let bytes = try #require(Hex.bytes("9101045402656e61" + "320a03746578742f706c61696e616263"))
        let (message, error) = NDEFMessage.decodeLenient(bytes)
        #expect(message.records == [.text("a")])
        #expect(error?.kind == .missingMessageEnd)
    }

    @Test func decodesFromAnyCollection() throws {
        let bytes: [UInt8] = [0xD0, 0x00, 0x00]
        #expect(try NDEFMessage(bytes: bytes[...]) == .empty)
        #expect(try NDEFMessage(bytes: bytes.lazy.map { $0 }) == .empty)
    }
}

/// Why an NDEF message could not be decoded: the kind of defect (named as in the
/// conformance vectors), the byte offset in the message where it was found, and the
/// record it belongs to.
///
/// `description` reads `record 2 at byte 37: URI identifier code 0x24 is not defined`.
public struct NDEFError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kinds of defect; `rawValue` is the `error` string of the vector format.
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        case emptyMessage = "empty-message"
        case truncatedHeader = "truncated-header"
        case truncatedPayload = "truncated-payload"
        case missingMessageBegin = "missing-message-begin"
        case unexpectedMessageBegin = "unexpected-message-begin"
        case missingMessageEnd = "missing-message-end"
        case trailingBytes = "trailing-bytes"
        case tnfReserved7 = "tnf-reserved-7"
        case emptyRecordWithType = "empty-record-with-type"
        case emptyRecordWithID = "empty-record-with-id"
        case emptyRecordWithPayload = "empty-record-with-payload"
        case missingType = "missing-type"
        case unknownRecordWithType = "unknown-record-with-type"
        case badChunkSequence = "bad-chunk-sequence"
        case uriBadPrefixCode = "uri-bad-prefix-code"
        case uriBadUTF8 = "uri-bad-utf8"
        case textBadLangLength = "text-bad-lang-length"
        /// A Text record whose language code or text is not valid in its encoding.
        case textBadEncoding = "text-bad-encoding"
        case smartposterMissingURI = "smartposter-missing-uri"
        /// A Smart Poster with more than one URI record.
        case smartposterMultipleURI = "smartposter-multiple-uri"
        /// Smart Posters nested deeper than `NDEFMessage.maximumNestingDepth`.
        case ndefNestingTooDeep = "ndef-nesting-too-deep"
    }

    /// What is wrong.
    public var kind: Kind
    /// Byte offset in the decoded bytes where the defect was found.
    public var offset: Int
    /// Position of the record (0 = first, counting every chunk) when the defect is in one.
    public var recordIndex: Int?
    /// One sentence for a person: what was found and what was expected.
    public var detail: String

    public init(_ kind: Kind, at offset: Int, record recordIndex: Int? = nil, _ detail: String) {
        self.kind = kind
        self.offset = offset
        self.recordIndex = recordIndex
        self.detail = detail
    }

    /// `record 2 at byte 37: …` (records counted from 1), or `at byte 0: …` outside a record.
    public var description: String {
        if let recordIndex { return "record \(recordIndex + 1) at byte \(offset): \(detail)" }
        return "at byte \(offset): \(detail)"
    }

    /// The same defect seen from an enclosing buffer: `base` bytes further in, in record `index`.
    func relocated(by base: Int, record index: Int) -> NDEFError {
        NDEFError(kind, at: offset + base, record: index, detail)
    }
}

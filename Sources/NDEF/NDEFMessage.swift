/// An NDEF message: the records a tag holds, in order, with chunked records
/// already joined. `NDEFMessage(bytes:)` decodes strictly; `decodeLenient` salvages
/// the records before a defect; `encoded()` writes the canonical bytes.
public struct NDEFMessage: Sendable, Equatable {
    public var records: [NDEFRecord]

    public init(records: [NDEFRecord]) { self.records = records }

    /// The empty NDEF message: one empty record (`D0 00 00`).
    public static let empty = NDEFMessage(records: [.empty])

    /// How many messages deep Smart Posters may nest below the tag's own message; a
    /// deeper one is `ndef-nesting-too-deep` (a real poster nests one; a hostile tag
    /// nests thousands to exhaust the stack).
    public static let maximumNestingDepth = 8

    /// Decodes a message strictly: any defect in the record layer or in a URI,
    /// Text or Smart Poster payload is an error with its byte offset.
    public init(bytes: some Collection<UInt8>) throws(NDEFError) {
        let outcome = Self.walk(bytes)
        if let error = outcome.error { throw error }
        records = outcome.records
    }

    /// Decodes an array strictly (the common case, without generic dispatch).
    public init(bytes: [UInt8]) throws(NDEFError) {
        let outcome = bytes.withUnsafeBufferPointer { RecordParser.parse($0) }
        if let error = outcome.error { throw error }
        records = outcome.records
    }

    /// Decodes what can be read: the records before the first defect, and the defect
    /// (nil when the message is whole).
    public static func decodeLenient(_ bytes: some Collection<UInt8>) -> (message: NDEFMessage, error: NDEFError?) {
        let outcome = walk(bytes)
        return (NDEFMessage(records: outcome.records), outcome.error)
    }

    /// The message's bytes. With `chunkSize`, payloads longer than it are split
    /// into chunks of at most that many bytes.
    public func encoded(chunkSize: Int? = nil) -> [UInt8] {
        RecordWriter.encode(records, chunkSize: chunkSize)
    }

    /// The first URI record's URI, a Smart Poster's URI, or an absolute URI (TNF 3).
    public var firstURI: String? {
        for record in records {
            switch record.tnf {
            case .wellKnown where record.type == [0x55] || record.type == SmartPoster.type,
                 .absoluteURI:
                if let uri = record.content.uriValue { return uri }
            default:
                continue
            }
        }
        return nil
    }

    /// The first Text record's text.
    public var firstText: String? {
        for record in records where record.tnf == .wellKnown && record.type == [0x54] {
            if case .text(let text) = record.content { return text.text }
        }
        return nil
    }

    private static func walk(_ bytes: some Collection<UInt8>) -> RecordParser.Outcome {
        if let outcome = bytes.withContiguousStorageIfAvailable({ RecordParser.parse($0) }) { return outcome }
        return Array(bytes).withUnsafeBufferPointer { RecordParser.parse($0) }
    }
}

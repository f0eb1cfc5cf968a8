/// The payload of a Smart Poster record (`Sp`): a nested NDEF message with exactly
/// one URI record, titles in several languages, and optional action, size and type.
/// Icon and other records in the nested message are not decoded.
public struct SmartPoster: Sendable, Equatable {
    /// What the poster asks the reader to do with the URI (the `act` record).
    public enum Action: UInt8, Sendable, Equatable {
        case exec = 0, save = 1, edit = 2

        /// `exec`, `save` or `edit`, as the vector format spells it.
        public var name: String {
            switch self {
            case .exec: return "exec"
            case .save: return "save"
            case .edit: return "edit"
            }
        }
    }

    /// One title: language tag and text.
    public struct Title: Sendable, Equatable {
        public var language: String
        public var text: String

        public init(language: String, text: String) {
            self.language = language
            self.text = text
        }
    }

    public var uri: String
    /// Titles in payload order.
    public var titles: [Title]
    public var action: Action?
    /// The media type of what the URI points at (the `t` record).
    public var type: String?
    /// The size in bytes of what the URI points at (the `s` record).
    public var size: UInt32?

    static let type: [UInt8] = Array("Sp".utf8)

    public init(uri: String, titles: [Title] = [], action: Action? = nil, type: String? = nil, size: UInt32? = nil) {
        self.uri = uri
        self.titles = titles
        self.action = action
        self.type = type
        self.size = size
    }

    /// Decodes the nested message; its records may come in any order.
    public init(payload: [UInt8]) throws(NDEFError) {
        try self.init(payload: payload, depth: 1)
    }

    /// Decodes the nested message, which is `depth` messages below the tag's own: deeper
    /// than `NDEFMessage.maximumNestingDepth` is `ndef-nesting-too-deep` at its first byte.
    init(payload: [UInt8], depth: Int) throws(NDEFError) {
        guard depth <= NDEFMessage.maximumNestingDepth else {
            throw NDEFError(.ndefNestingTooDeep, at: 0,
                            "Smart Posters nest more than \(NDEFMessage.maximumNestingDepth) messages deep")
        }
        let outcome = payload.withUnsafeBufferPointer { RecordParser.parse($0, depth: depth) }
        if let error = outcome.error { throw error }
        let message = NDEFMessage(records: outcome.records)
        var uri: String?
        var titles: [Title] = []
        var action: Action?
        var type: String?
        var size: UInt32?
        for (index, record) in message.records.enumerated() where record.tnf == .wellKnown {
            switch record.type {
            case [0x55]:  // U
                guard uri == nil else {
                    throw NDEFError(.smartposterMultipleURI, at: 0, record: index, "Smart Poster has more than one URI record")
                }
                uri = try record.decodedContent().uriValue
            case [0x54]:  // T
                let text = try NDEFText(payload: record.payload)
                titles.append(Title(language: text.language, text: text.text))
            case Array("act".utf8):
                action = record.payload.first.flatMap(Action.init(rawValue:))
            case [0x73] where record.payload.count == 4:  // s
                size = record.payload.reduce(0) { $0 << 8 | UInt32($1) }
            case [0x74]:  // t
                type = utf8String(record.payload)
            default:
                break
            }
        }
        guard let uri else {
            throw NDEFError(.smartposterMissingURI, at: 0, "Smart Poster has no URI record")
        }
        self.init(uri: uri, titles: titles, action: action, type: type, size: size)
    }

    /// The nested message: URI, titles, then action, type and size when set.
    public var payload: [UInt8] {
        var records = [NDEFRecord.uri(uri)]
        records += titles.map { NDEFRecord.text($0.text, locale: $0.language) }
        if let action { records.append(NDEFRecord(tnf: .wellKnown, type: Array("act".utf8), payload: [action.rawValue])) }
        if let type { records.append(NDEFRecord(tnf: .wellKnown, type: [0x74], payload: Array(type.utf8))) }
        if let size {
            records.append(NDEFRecord(tnf: .wellKnown, type: [0x73],
                                      payload: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: size >> $0) }))
        }
        return NDEFMessage(records: records).encoded()
    }
}

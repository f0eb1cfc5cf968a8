import Synchronization

/// A JSON value as it was read: built (`value`), or kept as its text when that text
/// is exactly what a compact `JSONWriter` writes for it (`text`, decoded on first
/// use). An event line's `ndef` member is read this way: the `log` action and the
/// other actions write it back as it came, and it is built only when a route or a
/// template looks inside it.
public enum LazyJSONValue: Sendable, Equatable {
    case value(JSONValue)
    case text(CompactJSON)

    /// The value, built from the text on first use.
    public var value: JSONValue {
        switch self {
        case .value(let value): return value
        case .text(let text): return text.value
        }
    }

    /// True for `null`, without building anything.
    public var isNull: Bool {
        switch self {
        case .value(let value): return value == .null
        case .text(let text): return text.utf8.elementsEqual("null".utf8)
        }
    }

    /// Equal values, however each is held (the same text is the same value without building either).
    public static func == (lhs: LazyJSONValue, rhs: LazyJSONValue) -> Bool {
        if case .text(let left) = lhs, case .text(let right) = rhs, left.utf8 == right.utf8 { return true }
        return lhs.value == rhs.value
    }
}

/// JSON text that is exactly what a compact `JSONWriter` writes for its value (no
/// white space, only the writer's escapes, integers only, no repeated keys), as
/// `JSONReader.lazyValue()` found it; the value is built once, on first use, from any thread.
public final class CompactJSON: Sendable {
    /// The text, UTF-8.
    public let utf8: [UInt8]
    private let built = Mutex<JSONValue?>(nil)

    /// Only the reader makes one, from text it checked.
    init(checked utf8: UnsafeBufferPointer<UInt8>) { self.utf8 = Array(utf8) }

    public var value: JSONValue {
        built.withLock { built in
            if let built { return built }
            // The text was read as valid JSON: it parses (`null` only if that check was wrong).
            let value = (try? JSONValue.parse(bytes: utf8)) ?? .null
            built = value
            return value
        }
    }
}

extension JSONReader {
    /// Reads the next value: kept as its text (`.text`, not built) when that text is
    /// what a compact `JSONWriter` writes for it, else built as `value()` builds it
    /// (`.value`) — with `value()`'s errors, at its offsets, for text that is not JSON.
    public mutating func lazyValue() throws(JSONParseError) -> LazyJSONValue {
        parser.skipWhitespace()
        let start = parser.position
        if parser.skipCompactValue() {
            return .text(CompactJSON(checked: UnsafeBufferPointer(rebasing: parser.input[start..<parser.position])))
        }
        return .value(try parser.value())
    }
}

extension JSONWriter {
    /// Writes `value`; its text as it is when it has one and the writer is compact.
    public mutating func write(_ value: LazyJSONValue) {
        if case .text(let text) = value, !pretty {
            text.utf8.withUnsafeBufferPointer { append(raw: $0) }
        } else {
            write(value.value)
        }
    }
}

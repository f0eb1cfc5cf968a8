/// JSON text that could not be parsed: the byte offset where it went wrong and what
/// was expected there.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Offset of the offending byte from the start of the text.
    public var offset: Int
    public var reason: String

    public init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    public var description: String { "at byte \(offset): \(reason)" }
}

extension JSONValue {
    /// The deepest nesting of arrays and objects `parse` accepts: documents come
    /// from outside (event lines, tag payloads), and each level is a stack frame.
    public static let maximumDepth = 512

    /// Parses one JSON document (RFC 8259, UTF-8); object members keep the order of
    /// the text, and a repeated key keeps its last value.
    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        var text = text
        return try text.withUTF8 { parse(utf8: $0) }.get()
    }

    /// Parses one JSON document from UTF-8 bytes.
    public static func parse(bytes: some Collection<UInt8>) throws(JSONParseError) -> JSONValue {
        let result = bytes.withContiguousStorageIfAvailable { parse(utf8: $0) } ?? Array(bytes).withUnsafeBufferPointer { parse(utf8: $0) }
        return try result.get()
    }

    private static func parse(utf8: UnsafeBufferPointer<UInt8>) -> Result<JSONValue, JSONParseError> {
        var parser = JSONParser(input: utf8)
        return Result { () throws(JSONParseError) in try parser.document() }
    }
}

/// A member name as the text spells it, escapes decoded: its UTF-8 bytes, valid
/// only while its member is being read.
public struct JSONKey {
    public let utf8: UnsafeBufferPointer<UInt8>

    public init(utf8: UnsafeBufferPointer<UInt8>) { self.utf8 = utf8 }

    /// True when the name is `name`, compared byte by byte (no String is made for the key).
    public func `is`(_ name: String) -> Bool {
        guard utf8.count == name.utf8.count else { return false }
        return name.utf8.withContiguousStorageIfAvailable { wanted in
            for index in wanted.indices where wanted[index] != utf8[index] { return false }
            return true
        } ?? utf8.elementsEqual(name.utf8)
    }
}

/// Reads a JSON document whose shape the caller knows, member by member, so
/// objects that are only taken apart (an event line, its `tag`) are never built:
/// the caller picks the members it wants by name and reads the rest as values.
/// The same parser as `JSONValue.parse`: the same errors at the same offsets.
public struct JSONReader {
    var parser: JSONParser

    /// Reads the document in `utf8` with `body`, which must read one value; only
    /// white space may follow it.
    public static func read<Result>(
        utf8: UnsafeBufferPointer<UInt8>, _ body: (inout JSONReader) throws(JSONParseError) -> Result
    ) throws(JSONParseError) -> Result {
        var reader = JSONReader(parser: JSONParser(input: utf8))
        let result = try body(&reader)
        try reader.parser.end()
        return result
    }

    /// True when the next value is an object (nothing is read).
    public mutating func atObject() -> Bool {
        parser.skipWhitespace()
        return parser.current == UInt8(ascii: "{")
    }

    /// Reads the next value whole.
    public mutating func value() throws(JSONParseError) -> JSONValue {
        try parser.value()
    }

    /// Reads the next value, which must be an object: `member` is called with each
    /// member's name, in text order, and must read that member's value.
    public mutating func object(_ member: (JSONKey, inout JSONReader) throws(JSONParseError) -> Void) throws(JSONParseError) {
        parser.skipWhitespace()
        guard parser.current == UInt8(ascii: "{") else { throw parser.failure("expected an object") }
        try parser.members { parser, key throws(JSONParseError) in
            var reader = JSONReader(parser: parser)
            defer { parser = reader.parser }
            try member(key, &reader)
        }
    }
}

/// A recursive-descent parser over UTF-8 bytes; depth is bounded by `JSONValue.maximumDepth`.
struct JSONParser {
    let input: UnsafeBufferPointer<UInt8>
    var position = 0
    var depth = 0

    init(input: UnsafeBufferPointer<UInt8>) { self.input = input }

    mutating func document() throws(JSONParseError) -> JSONValue {
        let value = try value()
        try end()
        return value
    }

    /// Only white space may be left.
    mutating func end() throws(JSONParseError) {
        skipWhitespace()
        guard position == input.count else { throw failure("expected the end of the text after the JSON value") }
    }

    var current: UInt8? { position < input.count ? input[position] : nil }

    func failure(_ reason: String, at offset: Int? = nil) -> JSONParseError {
        let offset = offset ?? position
        let found = offset < input.count ? Self.describe(input[offset]) : "the end of the text"
        return JSONParseError(offset: offset, reason: "\(reason), found \(found)")
    }

    private static func describe(_ byte: UInt8) -> String {
        (0x21...0x7E).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x" + String(byte, radix: 16)
    }

    mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { position += 1 }
    }

    mutating func value() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        switch current ?? 0 {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw failure("expected a JSON value")
        }
    }

    private mutating func literal(_ word: StaticString, _ value: JSONValue) throws(JSONParseError) -> JSONValue {
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        for byte in expected {
            guard current == byte else { throw failure("expected '\(word)'") }
            position += 1
        }
        return value
    }

    private mutating func enter() throws(JSONParseError) {
        depth += 1
        guard depth <= JSONValue.maximumDepth else {
            throw JSONParseError(offset: position, reason: "arrays and objects nest deeper than \(JSONValue.maximumDepth) levels")
        }
        position += 1
    }

    private mutating func object() throws(JSONParseError) -> JSONValue {
        var object = JSONObject()
        try members { parser, key throws(JSONParseError) in
            let name = String(decoding: key.utf8, as: UTF8.self)
            object[name] = try parser.value()
        }
        return .object(object)
    }

    /// Reads an object from its `{`: `member` gets each name (valid UTF-8) with the
    /// parser at its value, and must read the value.
    mutating func members(_ member: (inout JSONParser, JSONKey) throws(JSONParseError) -> Void) throws(JSONParseError) {
        try enter()
        defer { depth -= 1 }
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            position += 1
            return
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw failure("expected a member name in double quotes") }
            let key = try stringBytes()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw failure("expected ':' after the member name") }
            position += 1
            try key.withKey { key throws(JSONParseError) in try member(&self, key) }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"):
                position += 1
                return
            default: throw failure("expected ',' or '}' after an object member")
            }
        }
    }

    private mutating func array() throws(JSONParseError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            position += 1
            return .array(elements)
        }
        while true {
            elements.append(try value())
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"):
                position += 1
                return .array(elements)
            default: throw failure("expected ',' or ']' after an array element")
            }
        }
    }

    /// The bytes of a string read by `stringBytes`: a run of the input, or a copy
    /// when escapes had to be decoded. Valid UTF-8 either way.
    private enum StringBytes {
        case input(UnsafeBufferPointer<UInt8>)
        case unescaped([UInt8])

        func withKey<Value>(_ body: (JSONKey) throws(JSONParseError) -> Value) throws(JSONParseError) -> Value {
            switch self {
            case .input(let bytes): return try body(JSONKey(utf8: bytes))
            case .unescaped(let bytes):
                // Typed throws cannot cross `withUnsafeBufferPointer`: the result carries the error out.
                let result = bytes.withUnsafeBufferPointer { bytes in Result { () throws(JSONParseError) in try body(JSONKey(utf8: bytes)) } }
                return try result.get()
            }
        }
    }

    /// A string from its opening quote. ASCII text, the common case, needs no
    /// UTF-8 validation (the generic validating initializer was a fifth of the
    /// time of reading an events file).
    private mutating func string() throws(JSONParseError) -> String {
        switch try stringBytes() {
        case .input(let bytes): return String(decoding: bytes, as: UTF8.self)
        case .unescaped(let bytes): return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// A string's bytes from its opening quote: runs without escapes are taken whole,
    /// and a string without escapes is not copied at all.
    private mutating func stringBytes() throws(JSONParseError) -> StringBytes {
        position += 1
        var runStart = position
        var unescaped: [UInt8]?
        var ascii = true
        while true {
            if !skipPlainBytes() { ascii = false }
            guard let byte = current else { throw failure("expected '\"' to end the string") }
            switch byte {
            case UInt8(ascii: "\""):
                let run = UnsafeBufferPointer(rebasing: input[runStart..<position])
                let result: StringBytes
                if var bytes = unescaped {
                    bytes.append(contentsOf: run)
                    result = .unescaped(bytes)
                } else {
                    result = .input(run)
                }
                if !ascii, !Self.isValidUTF8(result) { throw JSONParseError(offset: runStart, reason: "the string is not valid UTF-8") }
                position += 1
                return result
            case UInt8(ascii: "\\"):
                var bytes = unescaped ?? []
                unescaped = nil
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: input[runStart..<position]))
                position += 1
                try escape(into: &bytes)
                unescaped = bytes
                runStart = position
            default:
                throw failure("expected a control character in a string to be escaped")
            }
        }
    }

    /// Moves past the bytes of a string that end nothing and need no escape (most
    /// of every string), eight at a time while it can, stopping at the first byte
    /// that ends the run; false when one it moved past was not ASCII.
    mutating func skipPlainBytes() -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let quotes = ones &* UInt64(UInt8(ascii: "\"")), backslashes = ones &* UInt64(UInt8(ascii: "\\"))
        /// The high bit of each zero byte of `word`; the lowest one set is the first zero byte.
        func zeroBytes(_ word: UInt64) -> UInt64 { (word &- ones) & ~word & highs }
        var seen: UInt64 = 0
        if let base = input.baseAddress {
            while position + 8 <= input.count {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self))
                // A quote, a backslash or a control character (below 0x20, high bit clear) ends the run.
                let ends = zeroBytes(word ^ quotes) | zeroBytes(word ^ backslashes) | (word &- ones &* 0x20) & ~word & highs
                if ends != 0 {
                    let plain = ends.trailingZeroBitCount / 8  // the bytes before the first that ends the run (0…7)
                    seen |= word & ((1 << (8 * UInt64(plain))) &- 1)
                    position += plain
                    return seen & highs == 0
                }
                seen |= word
                position += 8
            }
        }
        while position < input.count, case let byte = input[position], byte >= 0x20, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
            seen |= UInt64(byte)
            position += 1
        }
        return seen & highs == 0
    }

    private static func isValidUTF8(_ bytes: StringBytes) -> Bool {
        switch bytes {
        case .input(let run): return String(validating: run, as: UTF8.self) != nil
        case .unescaped(let copy): return String(validating: copy, as: UTF8.self) != nil
        }
    }

    /// The character after `\`, appended to `bytes` as UTF-8.
    private mutating func escape(into bytes: inout [UInt8]) throws(JSONParseError) {
        guard let byte = current else { throw failure("expected an escape after '\\'") }
        position += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): bytes.append(byte)
        case UInt8(ascii: "b"): bytes.append(0x08)
        case UInt8(ascii: "f"): bytes.append(0x0C)
        case UInt8(ascii: "n"): bytes.append(0x0A)
        case UInt8(ascii: "r"): bytes.append(0x0D)
        case UInt8(ascii: "t"): bytes.append(0x09)
        case UInt8(ascii: "u"): UTF8.encode(try unicodeEscape()) { bytes.append($0) }
        default: throw failure("expected one of \" \\ / b f n r t u after '\\'", at: position - 1)
        }
    }

    /// The scalar of `XXXX` after `\u`, joining a surrogate pair written as two escapes.
    private mutating func unicodeEscape() throws(JSONParseError) -> Unicode.Scalar {
        let start = position - 2
        let first = try hexQuad()
        if (0xD800..<0xDC00).contains(first) {
            guard current == UInt8(ascii: "\\"), position + 1 < input.count, input[position + 1] == UInt8(ascii: "u") else {
                throw JSONParseError(offset: start, reason: "a high surrogate \\u\(String(first, radix: 16)) must be followed by a low one")
            }
            position += 2
            let second = try hexQuad()
            guard (0xDC00..<0xE000).contains(second) else {
                throw JSONParseError(offset: start, reason: "a high surrogate \\u\(String(first, radix: 16)) must be followed by a low one")
            }
            return Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))!
        }
        guard let scalar = Unicode.Scalar(first) else {
            throw JSONParseError(offset: start, reason: "a lone low surrogate \\u\(String(first, radix: 16))")
        }
        return scalar
    }

    private mutating func hexQuad() throws(JSONParseError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            let digit: UInt8
            switch current {
            case let byte? where (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte): digit = byte - UInt8(ascii: "0")
            case let byte? where (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte): digit = byte - UInt8(ascii: "a") + 10
            case let byte? where (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("expected four hex digits after '\\u'")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    /// An integer that fits Int64 becomes `.int`; a fraction, an exponent, `-0` or a
    /// larger integer becomes `.double`.
    private mutating func number() throws(JSONParseError) -> JSONValue {
        let start = position
        let negative = current == UInt8(ascii: "-")
        if negative { position += 1 }
        let integerStart = position
        var magnitude: UInt64 = 0
        var fitsInteger = true
        while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
            let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            if overflow1 || overflow2 { fitsInteger = false }
            magnitude = sum
            position += 1
        }
        guard position > integerStart else { throw failure("expected a digit") }
        if input[integerStart] == UInt8(ascii: "0"), position - integerStart > 1 {
            throw JSONParseError(offset: integerStart, reason: "a number must not start with 0 followed by digits")
        }
        if current == UInt8(ascii: ".") {
            position += 1
            guard digits() else { throw failure("expected a digit after '.'") }
            fitsInteger = false
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            position += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
            guard digits() else { throw failure("expected a digit in the exponent") }
            fitsInteger = false
        }
        if fitsInteger, magnitude != 0 || !negative {
            if negative, magnitude <= UInt64(Int64.max) + 1 { return .int(Int64(truncatingIfNeeded: 0 &- magnitude)) }
            if !negative, magnitude <= UInt64(Int64.max) { return .int(Int64(magnitude)) }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: input[start..<position]), as: UTF8.self)
        guard let double = Double(text) else { throw JSONParseError(offset: start, reason: "'\(text)' is not a number") }
        return .double(double)
    }

    /// Skips a run of digits; false when there was none.
    private mutating func digits() -> Bool {
        let start = position
        while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { position += 1 }
        return position > start
    }
}

/// Writes JSON as UTF-8 bytes into a buffer the caller can reuse: compact, or
/// indented by two spaces. Object members come out in their order, `/` and
/// non-ASCII text (U+2028 and U+2029 included) are not escaped, non-finite numbers
/// are written as `null`. A Swift `String` is valid Unicode, so the text is
/// always valid UTF-8.
///
/// Every write checks for room once and then stores through a pointer
/// (`JSONByteBuffer`). Strings are copied in runs: only `"`, `\` and control
/// characters interrupt a run, so plain text costs one scan (eight bytes at a
/// time) and one copy.
public struct JSONWriter {
    private var buffer: JSONByteBuffer
    /// Newlines and indentation between members and elements.
    public var pretty: Bool
    private var depth = 0

    public init(pretty: Bool = false, capacity: Int = 256) {
        self.pretty = pretty
        buffer = JSONByteBuffer(capacity: capacity)
    }

    /// A writer with no buffer of its own yet (`writeObject` swaps it in while it lends the real one).
    static var placeholder: JSONWriter {
        JSONWriter(buffer: JSONByteBuffer())
    }

    private init(buffer: JSONByteBuffer) {
        self.pretty = false
        self.buffer = buffer
    }

    /// The number of bytes written so far.
    public var count: Int { buffer.count }

    /// A copy of the text written so far.
    public var bytes: [UInt8] { buffer.withUnsafeBytes { Array($0) } }

    /// The text written so far, as a `String`.
    public var text: String { buffer.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }

    /// Lends the text written so far, without copying it.
    public func withUnsafeBytes<Result, Failure: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Result) throws(Failure) -> Result {
        try buffer.withUnsafeBytes(body)
    }

    /// Forgets the text, keeping the buffer's capacity.
    public mutating func clear() {
        buffer.removeAll()
    }

    /// Appends raw bytes (a newline, a separator) as they are.
    public mutating func append(raw byte: UInt8) {
        buffer.append(byte)
    }

    /// Appends raw bytes (JSON text already written) as they are.
    mutating func append(raw bytes: UnsafeBufferPointer<UInt8>) {
        buffer.append(bytes)
    }

    /// Appends raw bytes (a rendered template) as they are.
    public mutating func append(raw text: String) {
        var text = text
        text.withUTF8 { buffer.append($0) }
    }

    public mutating func write(_ value: JSONValue) {
        switch value {
        case .null: append(literal: "null")
        case .bool(let bool): append(literal: bool ? "true" : "false")
        case .int(let int): write(int)
        case .double(let double): write(double)
        case .string(let string): write(string)
        case .array(let elements):
            writeArray(count: elements.count) { writer, position in writer.write(elements[position]) }
        case .object(let object):
            openContainer(UInt8(ascii: "{"))
            for (position, member) in object.members.enumerated() {
                writeKey(member.key, position: position)
                write(member.value)
            }
            closeContainer(UInt8(ascii: "}"), empty: object.count == 0)
        }
    }

    /// An array of `count` elements, each written by `element` (given its position).
    mutating func writeArray(count: Int, _ element: (inout JSONWriter, Int) -> Void) {
        openContainer(UInt8(ascii: "["))
        for position in 0..<count {
            separate(position)
            element(&self, position)
        }
        closeContainer(UInt8(ascii: "]"), empty: count == 0)
    }

    /// A member's name and colon, after the comma when it is not the first (`position` 0).
    /// Compact, the comma, the name and the colon are stored as one write.
    mutating func writeKey(_ key: String, position: Int) {
        if pretty {
            separate(position)
            writeQuoted(key, comma: false, colon: true)
            buffer.append(UInt8(ascii: " "))
        } else {
            writeQuoted(key, comma: position > 0, colon: true)
        }
    }

    mutating func openContainer(_ open: UInt8) {
        buffer.append(open)
        depth += 1
    }

    /// The closing bracket; an empty container stays on one line (`[]`, `{}`).
    mutating func closeContainer(_ close: UInt8, empty: Bool) {
        depth -= 1
        if !empty { newline() }
        buffer.append(close)
    }

    /// A quoted, escaped JSON string.
    public mutating func write(_ string: String) {
        writeQuoted(string, comma: false, colon: false)
    }

    /// `string` quoted and escaped, after a comma and before a colon when asked.
    private mutating func writeQuoted(_ string: String, comma: Bool, colon: Bool) {
        if string.utf8.withContiguousStorageIfAvailable({ writeQuoted($0, comma: comma, colon: colon) }) == nil {
            var string = string
            string.withUTF8 { writeQuoted($0, comma: comma, colon: colon) }
        }
    }

    /// `bytes` as a string of lowercase hex digits, two a byte (`"d101"`), stored
    /// straight into the buffer: no `String` is made, and nothing needs escaping.
    public mutating func write(hex bytes: [UInt8]) {
        let out = buffer.reserve(2 + bytes.count * 2)
        out[0] = UInt8(ascii: "\"")
        bytes.withUnsafeBufferPointer { Self.storeHex($0, at: out + 1) }
        out[1 + bytes.count * 2] = UInt8(ascii: "\"")
        buffer.commit(2 + bytes.count * 2)
    }

    /// `bytes` as lowercase hex digits in a `String` (for a tree's member).
    static func hexString(_ bytes: [UInt8]) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { text in
            bytes.withUnsafeBufferPointer { storeHex($0, at: text.baseAddress!) }
            return bytes.count * 2
        }
    }

    /// Two lowercase hex digits for each byte, stored at `out`.
    private static func storeHex(_ bytes: UnsafeBufferPointer<UInt8>, at out: UnsafeMutablePointer<UInt8>) {
        let digits: StaticString = "0123456789abcdef"
        for (index, byte) in bytes.enumerated() {
            out[2 * index] = digits.utf8Start[Int(byte >> 4)]
            out[2 * index + 1] = digits.utf8Start[Int(byte & 0x0F)]
        }
    }

    /// Decimal digits, stored straight into the buffer.
    public mutating func write(_ int: Int64) {
        var magnitude = int.magnitude
        var digitCount = 1
        var scale: UInt64 = 10
        while digitCount < 20, magnitude >= scale {
            digitCount += 1
            scale = scale.multipliedReportingOverflow(by: 10).partialValue
        }
        let sign = int < 0 ? 1 : 0
        let start = buffer.reserve(sign + digitCount)
        if sign == 1 { start.pointee = UInt8(ascii: "-") }
        var digit = start + sign + digitCount
        repeat {
            digit -= 1
            digit.pointee = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
            magnitude /= 10
        } while digit > start + sign
        buffer.commit(sign + digitCount)
    }

    /// The shortest text that reads back as the same double, always with a `.` or
    /// an exponent so it reads back as a double (`1.0`, `-0.0`, `1e+300`).
    public mutating func write(_ double: Double) {
        guard double.isFinite else { return append(literal: "null") }
        append(raw: double.description)
    }

    /// A few bytes (`null`, `:`), stored one by one: cheaper than a call to copy them.
    private mutating func append(literal: StaticString) {
        let count = literal.utf8CodeUnitCount
        let out = buffer.reserve(count)
        for offset in 0..<count { out[offset] = literal.utf8Start[offset] }
        buffer.commit(count)
    }

    /// The comma before every member but the first, and in pretty mode the line break.
    private mutating func separate(_ position: Int) {
        if position > 0 { buffer.append(UInt8(ascii: ",")) }
        newline()
    }

    private mutating func newline() {
        guard pretty else { return }
        let start = buffer.reserve(1 + depth * 2)
        start.pointee = UInt8(ascii: "\n")
        (start + 1).initialize(repeating: UInt8(ascii: " "), count: depth * 2)
        buffer.commit(1 + depth * 2)
    }

    /// `utf8` in quotes, escaped (after a comma, before a colon when asked). The text is scanned and copied eight bytes at a
    /// time; the last few bytes are gathered into one word padded with spaces, so
    /// a string with nothing to escape takes no step per byte. Only a word that
    /// holds a byte to escape is copied byte by byte. Room is reserved once, with
    /// eight bytes to spare for the last word's store; an escape (up to six bytes
    /// for one) reserves again for what is left.
    private mutating func writeQuoted(_ utf8: UnsafeBufferPointer<UInt8>, comma: Bool, colon: Bool) {
        let count = utf8.count
        var out = buffer.reserve(1 + count + 2 + 1 + 8)
        var written = 0
        if comma {
            out[written] = UInt8(ascii: ",")
            written += 1
        }
        out[written] = UInt8(ascii: "\"")
        written += 1
        var position = 0
        while position < count, let source = utf8.baseAddress {
            while position + 8 <= count {
                let word = UnsafeRawPointer(source + position).loadUnaligned(as: UInt64.self)
                if Self.mayNeedEscape(word) { break }
                UnsafeMutableRawPointer(out + written).storeBytes(of: word, as: UInt64.self)
                position += 8
                written += 8
            }
            let left = count - position
            if left < 8 {
                var word = Self.spaces << (8 * UInt64(left))  // a shift by 64 would not clear it, so left is never 8
                for offset in 0..<left { word |= UInt64(source[position + offset]) << (8 * UInt64(offset)) }
                if !Self.mayNeedEscape(word) {
                    UnsafeMutableRawPointer(out + written).storeBytes(of: word, as: UInt64.self)
                    written += left
                    break
                }
            }
            // This word holds a byte to escape: byte by byte up to its end.
            for byte in UnsafeBufferPointer(start: source + position, count: min(8, left)) {
                position += 1
                if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                    buffer.commit(written)
                    out = buffer.reserve(6 + count - position + 2 + 8)  // the escape, the rest, `":`, the last word's spare
                    written = Self.storeEscape(for: byte, at: out)
                } else {
                    out[written] = byte
                    written += 1
                }
            }
        }
        out[written] = UInt8(ascii: "\"")
        written += 1
        if colon {
            out[written] = UInt8(ascii: ":")
            written += 1
        }
        buffer.commit(written)
    }

    /// Eight spaces: padding that needs no escape.
    private static let spaces: UInt64 = 0x2020_2020_2020_2020

    /// Whether any of eight bytes is a control character, `"` or `\` (exact: never
    /// false when one is there; bytes of non-ASCII characters never match).
    @inline(__always)
    private static func mayNeedEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ value: UInt64) -> Bool { (value &- ones) & ~value & highBits != 0 }
        let hasControl = (word &- ones &* 0x20) & ~word & highBits != 0
        return hasControl || hasZeroByte(word ^ (ones &* 0x22)) || hasZeroByte(word ^ (ones &* 0x5C))
    }

    /// Stores the escape for `byte` at `out` (`\"`, `\\`, `\n`, `\r`, `\t` or
    /// `\u00XX`); returns how many bytes it took.
    private static func storeEscape(for byte: UInt8, at out: UnsafeMutablePointer<UInt8>) -> Int {
        out[0] = UInt8(ascii: "\\")
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): out[1] = byte
        case UInt8(ascii: "\n"): out[1] = UInt8(ascii: "n")
        case UInt8(ascii: "\r"): out[1] = UInt8(ascii: "r")
        case UInt8(ascii: "\t"): out[1] = UInt8(ascii: "t")
        default:
            let hexDigits: StaticString = "0123456789abcdef"
            out[1] = UInt8(ascii: "u")
            out[2] = UInt8(ascii: "0")
            out[3] = UInt8(ascii: "0")
            out[4] = hexDigits.utf8Start[Int(byte >> 4)]
            out[5] = hexDigits.utf8Start[Int(byte & 0x0F)]
            return 6
        }
        return 2
    }
}

extension JSONValue {
    /// JSON text: compact, or indented by two spaces with `pretty`.
    public func serialized(pretty: Bool = false) -> String {
        var writer = JSONWriter(pretty: pretty, capacity: 1024)  // a whole event without regrowing
        writer.write(self)
        return writer.text
    }
}

/// Writes JSON as UTF-8 bytes into a buffer the caller can reuse: compact, or
/// indented by two spaces. Object members come out in their order, `/` and
/// non-ASCII text are not escaped, non-finite numbers are written as `null`.
///
/// Strings are copied in runs: only `"`, `\` and control characters interrupt a
/// run, so plain text costs one scan (eight bytes at a time) and one bulk append.
public struct JSONWriter {
    /// The text written so far.
    public var bytes: [UInt8]
    /// Newlines and indentation between members and elements.
    public var pretty: Bool
    private var depth = 0
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    public init(pretty: Bool = false, capacity: Int = 256) {
        self.pretty = pretty
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Forgets the text, keeping the buffer's capacity.
    public mutating func clear() {
        bytes.removeAll(keepingCapacity: true)
    }

    /// Appends raw bytes (a newline, a separator) as they are.
    @inlinable
    public mutating func append(raw: some Sequence<UInt8>) {
        bytes.append(contentsOf: raw)
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
    mutating func writeKey(_ key: String, position: Int) {
        separate(position)
        write(key)
        bytes.append(UInt8(ascii: ":"))
        if pretty { bytes.append(UInt8(ascii: " ")) }
    }

    mutating func openContainer(_ open: UInt8) {
        bytes.append(open)
        depth += 1
    }

    /// The closing bracket; an empty container stays on one line (`[]`, `{}`).
    mutating func closeContainer(_ close: UInt8, empty: Bool) {
        depth -= 1
        if !empty { newline() }
        bytes.append(close)
    }

    /// A quoted, escaped JSON string.
    public mutating func write(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        if string.utf8.withContiguousStorageIfAvailable({ appendEscaped($0) }) == nil {
            var string = string
            string.withUTF8 { appendEscaped($0) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Decimal digits, computed without allocating.
    public mutating func write(_ int: Int64) {
        if int < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = int.magnitude
        var digitCount = 1
        var scale: UInt64 = 10
        while digitCount < 20, magnitude >= scale {
            digitCount += 1
            scale = scale.multipliedReportingOverflow(by: 10).partialValue
        }
        let end = bytes.count + digitCount
        bytes.append(contentsOf: repeatElement(0, count: digitCount))
        for position in stride(from: end - 1, to: end - digitCount - 1, by: -1) {
            bytes[position] = UInt8(ascii: "0") + UInt8(magnitude % 10)
            magnitude /= 10
        }
    }

    /// The shortest text that reads back as the same double, always with a `.` or
    /// an exponent so it reads back as a double (`1.0`, `-0.0`, `1e+300`).
    public mutating func write(_ double: Double) {
        guard double.isFinite else { return append(literal: "null") }
        append(raw: double.description.utf8)
    }

    private mutating func append(literal: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// The comma before every member but the first, and in pretty mode the line break.
    private mutating func separate(_ position: Int) {
        if position > 0 { bytes.append(UInt8(ascii: ",")) }
        newline()
    }

    private mutating func newline() {
        guard pretty else { return }
        bytes.append(UInt8(ascii: "\n"))
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: depth * 2))
    }

    private mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        let words = UnsafeRawBufferPointer(utf8)
        var runStart = 0
        var position = 0
        while position < utf8.count {
            while position + 8 <= utf8.count, !Self.mayNeedEscape(words.loadUnaligned(fromByteOffset: position, as: UInt64.self)) {
                position += 8
            }
            guard position < utf8.count else { break }
            let byte = utf8[position]
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<position]))
                appendEscape(for: byte)
                runStart = position + 1
            }
            position += 1
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
    }

    /// Whether any of eight bytes is a control character, `"` or `\` (exact: never
    /// false when one is there; bytes of non-ASCII characters never match).
    private static func mayNeedEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ value: UInt64) -> Bool { (value &- ones) & ~value & highBits != 0 }
        let hasControl = (word &- ones &* 0x20) & ~word & highBits != 0
        return hasControl || hasZeroByte(word ^ (ones &* 0x22)) || hasZeroByte(word ^ (ones &* 0x5C))
    }

    private mutating func appendEscape(for byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
        case UInt8(ascii: "\n"): bytes.append(UInt8(ascii: "n"))
        case UInt8(ascii: "\r"): bytes.append(UInt8(ascii: "r"))
        case UInt8(ascii: "\t"): bytes.append(UInt8(ascii: "t"))
        default:
            append(literal: "u00")
            bytes.append(Self.hexDigits[Int(byte >> 4)])
            bytes.append(Self.hexDigits[Int(byte & 0x0F)])
        }
    }
}

extension JSONValue {
    /// JSON text: compact, or indented by two spaces with `pretty`.
    public func serialized(pretty: Bool = false) -> String {
        var writer = JSONWriter(pretty: pretty, capacity: 1024)  // a whole event without regrowing
        writer.write(self)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}

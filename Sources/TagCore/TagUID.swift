/// A tag's UID. Users bring it in every spelling other tools print
/// (`04:A2:24:B2`, `04-a2-24-b2`, `04 A2 24 B2`, `04a224b2`); all parse to the same
/// bytes, and events show it as lowercase hex (`hex`) and the Home Assistant /
/// ESPHome form (`dashed`).
public struct TagUID: Sendable, Hashable, CustomStringConvertible {
    public var bytes: [UInt8]

    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// Parses any common spelling: hex digits with optional `:`, `-`, space or
    /// `0x` prefix, in either case. Nil when anything else is in it, or an odd
    /// number of digits.
    /// Read byte by byte from the text's own storage: every character it accepts is
    /// ASCII (events read back from JSON parse a UID, its ATQA and SAK each, so this
    /// is on the events file's hot path).
    public init?(_ text: some StringProtocol) {
        let parsed = text.utf8.withContiguousStorageIfAvailable(Self.bytes) ?? Array(text.utf8).withUnsafeBufferPointer(Self.bytes)
        guard let parsed else { return nil }
        bytes = parsed
    }

    /// The bytes `utf8` spells, or nil (see `init?(_:)`).
    private static func bytes(_ utf8: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var utf8 = utf8[...]
        if utf8.count >= 2, utf8[utf8.startIndex] == UInt8(ascii: "0"), utf8[utf8.startIndex + 1] | 0x20 == UInt8(ascii: "x") {
            utf8 = utf8.dropFirst(2)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count / 2)
        var high: UInt8?
        for byte in utf8 {
            if byte == UInt8(ascii: ":") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: " ") { continue }
            guard let value = nibble(byte) else { return nil }
            if let first = high {
                bytes.append(first << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        guard !bytes.isEmpty, high == nil else { return nil }
        return bytes
    }

    /// Why `text` is not a UID, for an error message: an odd number of digits
    /// (half a byte), a character that is not a hex digit, or nothing at all.
    /// Nil when it parses.
    public static func problem(_ text: some StringProtocol) -> String? {
        guard TagUID(text) == nil else { return nil }
        var digits = Substring(text)
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
        digits.removeAll { $0 == ":" || $0 == "-" || $0 == " " }
        if let odd = digits.first(where: { !$0.isHexDigit || !$0.isASCII }) { return "'\(text)' is not a tag UID: '\(odd)' is not a hex digit" }
        if digits.isEmpty { return "'\(text)' is not a tag UID: it has no hex digits" }
        return "'\(text)' is not a tag UID: it has an odd number of hex digits (\(digits.count)); a UID is whole bytes, two digits each"
    }

    private static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Lowercase hex without separators: `04a224b2c35e80`.
    public var hex: String { spelled(digits: Self.lowercaseDigits, separator: nil) }

    /// Uppercase, dash-separated: `04-A2-24-B2-C3-5E-80`.
    public var dashed: String { spelled(digits: Self.uppercaseDigits, separator: UInt8(ascii: "-")) }

    public var description: String { hex }

    private static let lowercaseDigits: [UInt8] = Array("0123456789abcdef".utf8)
    private static let uppercaseDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// Two digits per byte, written straight into the string (events carry the UID twice).
    private func spelled(digits: [UInt8], separator: UInt8?) -> String {
        let length = bytes.count * 2 + (separator == nil ? 0 : max(bytes.count - 1, 0))
        return String(unsafeUninitializedCapacity: length) { buffer in
            var position = 0
            for (index, byte) in bytes.enumerated() {
                if let separator, index > 0 {
                    buffer[position] = separator
                    position += 1
                }
                buffer[position] = digits[Int(byte >> 4)]
                buffer[position + 1] = digits[Int(byte & 0x0F)]
                position += 2
            }
            return position
        }
    }
}

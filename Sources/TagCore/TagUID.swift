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
    public init?(_ text: some StringProtocol) {
        var digits = Substring(text)
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
        var nibbles: [UInt8] = []
        for character in digits {
            if character == ":" || character == "-" || character == " " { continue }
            guard let value = character.hexDigitValue else { return nil }
            nibbles.append(UInt8(value))
        }
        guard !nibbles.isEmpty, nibbles.count.isMultiple(of: 2) else { return nil }
        bytes = stride(from: 0, to: nibbles.count, by: 2).map { nibbles[$0] << 4 | nibbles[$0 + 1] }
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

/// Lowercase hexadecimal text for bytes, the way the vector format and the CLI write them.
public enum Hex {
    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    /// `[0xD1, 0x01]` → `"d101"`.
    public static func string(_ bytes: some Collection<UInt8>) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { buffer in
            var index = 0
            for byte in bytes {
                buffer[index] = digits[Int(byte >> 4)]
                buffer[index + 1] = digits[Int(byte & 0x0F)]
                index += 2
            }
            return index
        }
    }

    /// The bytes of hex text in either case; spaces, tabs, newlines and `:` between
    /// bytes are ignored. Nil for any other character or an odd number of digits.
    public static func bytes(_ text: some StringProtocol) -> [UInt8]? {
        bytes(utf8: text.utf8)
    }

    /// `bytes(_:)` for text given as UTF-8 bytes (a line read from a file). Inlinable, so
    /// it is specialized for the caller's collection instead of walking it generically.
    @inlinable
    public static func bytes(utf8 text: some Collection<UInt8>) -> [UInt8]? {
        var valid = true
        let bytes = [UInt8](unsafeUninitializedCapacity: text.count / 2) { buffer, count in
            var high: UInt8 = 0
            var haveHigh = false
            for character in text {
                if let nibble = nibble(character) {
                    if haveHigh {
                        buffer[count] = high << 4 | nibble
                        count += 1
                    } else {
                        high = nibble
                    }
                    haveHigh.toggle()
                } else if haveHigh || !isSeparator(character) {
                    valid = false
                    return
                }
            }
            valid = !haveHigh
        }
        return valid ? bytes : nil
    }

    /// The value of a hex digit in either case.
    @inlinable
    static func nibble(_ character: UInt8) -> UInt8? {
        let digit = character &- UInt8(ascii: "0")
        if digit < 10 { return digit }
        let letter = (character | 0x20) &- UInt8(ascii: "a")
        return letter < 6 ? letter + 10 : nil
    }

    /// Space, tab, newline, carriage return or `:`, allowed between bytes.
    @inlinable
    static func isSeparator(_ character: UInt8) -> Bool {
        character == UInt8(ascii: " ") || character == UInt8(ascii: "\t") || character == UInt8(ascii: "\n")
            || character == UInt8(ascii: "\r") || character == UInt8(ascii: ":")
    }
}

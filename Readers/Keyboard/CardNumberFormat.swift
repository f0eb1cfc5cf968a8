import TagCore

/// How a keyboard-wedge reader writes a card's id, and how to get the UID a
/// PN532 or PC/SC reader reports for the same card back from it
/// (docs/reader.md "Keyboard-wedge readers" says which readers type which).
struct CardNumberFormat: Sendable, Equatable {
    /// What the reader types.
    enum Notation: String, Sendable, CaseIterable {
        /// Ten decimal digits: the first four bytes of the UID as one 32-bit number.
        case decimal
        /// Eight decimal digits, Wiegand 26 style: three bytes as a facility code (three digits, 0–255)
        /// and a card number (five digits, 0–65535).
        case wiegand = "8h10d"
        /// The UID's bytes in hex, two digits each (4, 5, 7 or 10 bytes).
        case hex
    }

    /// Which end of the number the UID's first byte is.
    enum ByteOrder: String, Sendable, CaseIterable {
        /// The UID's first byte is the number's most significant (first typed, in hex).
        case asTyped = "as-typed"
        /// The UID's first byte is the number's least significant: many readers type the bytes reversed.
        case reversed
    }

    var notation: Notation
    var byteOrder: ByteOrder

    /// The UID a typed number stands for; nil when it is not a number of this format.
    func uid(_ typed: String) -> TagUID? {
        guard let bytes = bytes(typed) else { return nil }
        return TagUID(bytes: byteOrder == .reversed ? bytes.reversed() : bytes)
    }

    private func bytes(_ typed: String) -> [UInt8]? {
        switch notation {
        case .decimal:
            guard typed.count == 10, typed.allSatisfy(\.isASCIIDigit), let value = UInt64(typed), value <= UInt64(UInt32.max) else { return nil }
            return (0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
        case .wiegand:
            guard typed.count == 8, typed.allSatisfy(\.isASCIIDigit),
                let facility = UInt8(typed.prefix(3)), let card = UInt16(typed.suffix(5))
            else { return nil }
            return [facility, UInt8(card >> 8), UInt8(card & 0xFF)]
        case .hex:
            guard [8, 10, 14, 20].contains(typed.count) else { return nil }
            var bytes: [UInt8] = []
            var index = typed.startIndex
            while index < typed.endIndex {
                let next = typed.index(index, offsetBy: 2)
                guard let byte = UInt8(typed[index..<next], radix: 16) else { return nil }
                bytes.append(byte)
                index = next
            }
            return bytes
        }
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

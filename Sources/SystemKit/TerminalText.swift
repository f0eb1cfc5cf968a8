/// Text made safe for a terminal: every character a terminal could act on
/// instead of showing — C0 controls (ESC, BEL, newline, tab…), DEL, C1 controls
/// (U+0080–U+009F, U+009B being a one-character CSI) and the bidi controls that
/// reorder what is shown (U+061C, U+200E/F, U+202A–E, U+2066–9) — becomes
/// `\uXXXX`. Inside JSON text that is the same string, so JSON stays valid.
public enum TerminalText {
    /// `text` with every character a terminal could act on written as `\uXXXX`;
    /// with `keepingLineBreaks`, `\n` stays (for a message of several lines).
    public static func escaped(_ text: some StringProtocol, keepingLineBreaks: Bool = false) -> String {
        let hostile = { (scalar: Unicode.Scalar) in isHostile(scalar) && !(keepingLineBreaks && scalar == "\n") }
        guard text.unicodeScalars.contains(where: hostile) else { return String(text) }
        var result = ""
        result.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            guard hostile(scalar) else {
                result.unicodeScalars.append(scalar)
                continue
            }
            let hex = String(scalar.value, radix: 16)
            result += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }
        return result
    }

    /// `escaped` for UTF-8 bytes, without building a String when no byte could
    /// start a hostile character (plain ASCII text, most UTF-8).
    public static func escaped(bytes: [UInt8]) -> [UInt8] {
        guard bytes.withUnsafeBufferPointer(mayHoldHostile) else { return bytes }
        return Array(escaped(String(decoding: bytes, as: UTF8.self)).utf8)
    }

    /// `escaped(bytes:)` of `bytes` with a newline after it, as one array: the line a
    /// `log` action prints, copied once from the writer that lends it when nothing is hostile.
    public static func escapedLine(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        guard !mayHoldHostile(bytes) else { return Array(escaped(String(decoding: bytes, as: UTF8.self)).utf8) + [UInt8(ascii: "\n")] }
        return [UInt8](unsafeUninitializedCapacity: bytes.count + 1) { line, count in
            if let source = bytes.baseAddress, let target = line.baseAddress { target.initialize(from: source, count: bytes.count) }
            line[bytes.count] = UInt8(ascii: "\n")
            count = bytes.count + 1
        }
    }

    /// Whether some byte could start a hostile character: C0 and DEL are single
    /// bytes; C1 starts with 0xC2, U+061C with 0xD8, the others with 0xE2. Tested
    /// eight bytes at a time (a line is scanned for every event a `log` action prints).
    static func mayHoldHostile(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        /// True when some byte of `word` is zero (exact as to whether, not which).
        func hasZeroByte(_ word: UInt64) -> Bool { (word &- ones) & ~word & highs != 0 }
        func isHostileStart(_ byte: UInt8) -> Bool { byte < 0x20 || byte == 0x7F || byte == 0xC2 || byte == 0xD8 || byte == 0xE2 }
        guard let base = bytes.baseAddress else { return false }
        var position = 0
        while position + 8 <= bytes.count {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self))
            // Below 0x20 with the high bit clear: a control character.
            if (word &- ones &* 0x20) & ~word & highs != 0 { return true }
            // Printable ASCII (no byte reaches 0x80, even plus one: no DEL) needs no closer look.
            if (word | (word &+ ones)) & highs != 0,
               hasZeroByte(word ^ (ones &* 0x7F)) || hasZeroByte(word ^ (ones &* 0xC2))
                || hasZeroByte(word ^ (ones &* 0xD8)) || hasZeroByte(word ^ (ones &* 0xE2)) {
                return true
            }
            position += 8
        }
        while position < bytes.count {
            if isHostileStart(bytes[position]) { return true }
            position += 1
        }
        return false
    }

    /// Whether a terminal could act on `scalar` rather than show it.
    public static func isHostile(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}

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
        // C0 and DEL are single bytes; C1 starts with 0xC2, U+061C with 0xD8, the others with 0xE2.
        guard bytes.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 || $0 == 0xD8 || $0 == 0xE2 }) else { return bytes }
        return Array(escaped(String(decoding: bytes, as: UTF8.self)).utf8)
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

import OrderedJSON
import SystemKit
import Testing

/// What reaches a terminal from a tag, a reader name or a broker is shown, never obeyed.
@Suite struct TerminalTextTests {
    @Test(arguments: [
        ("\u{1B}]0;OWNED\u{07}", #"\u001b]0;OWNED\u0007"#),
        ("\u{1B}[2J", #"\u001b[2J"#),
        ("a\u{9B}31mred", #"a\u009b31mred"#),
        ("line\nnext\r\t", #"line\u000anext\u000d\u0009"#),
        ("\u{7F}\u{80}\u{9F}", #"\u007f\u0080\u009f"#),
        ("\u{202E}gnp.exe\u{202C}", #"\u202egnp.exe\u202c"#),
        ("\u{2066}\u{2069}\u{200E}\u{200F}\u{061C}", #"\u2066\u2069\u200e\u200f\u061c"#),
        ("", ""),
    ])
    func hostileCharactersAreWrittenOut(text: String, expected: String) {
        #expect(TerminalText.escaped(text) == expected)
    }

    @Test func printableTextStaysAsItIs() {
        for text in ["https://example.com/a?b=c", "Grüße — 東京 🚪", "front-door", #"back\slash "quoted""#, "\u{A0}\u{200D}"] {
            #expect(TerminalText.escaped(text) == text)
            #expect(TerminalText.escaped(bytes: Array(text.utf8)) == Array(text.utf8))
        }
    }

    /// Bytes are escaped as their text is, whichever byte a hostile character starts with.
    @Test(arguments: ["\u{1B}[2J", "a\u{9B}b", "\u{061C}", "— \u{202E}x", "\u{7F}", "ok"])
    func bytesAreEscapedAsTheirText(text: String) {
        #expect(TerminalText.escaped(bytes: Array(text.utf8)) == Array(TerminalText.escaped(text).utf8))
    }

    /// The line scan takes eight bytes at a time: a hostile character is found at
    /// every offset from a word's start, and the line is the escaped text and a newline.
    @Test(arguments: ["\u{1B}", "\u{00}", "\u{1F}", "\u{7F}", "\u{80}", "\u{9B}", "\u{061C}", "\u{200E}", "\u{202E}", "\u{2069}"])
    func aLineIsEscapedWhereverItsHostileCharacterIs(hostile: String) {
        for offset in 0..<20 {
            let text = String(repeating: "a", count: offset) + hostile + "tail ~ é 東 \u{A0}"
            let line = Array(text.utf8).withUnsafeBufferPointer(TerminalText.escapedLine)
            #expect(line == Array((TerminalText.escaped(text) + "\n").utf8), "hostile at byte \(offset)")
            #expect(line.filter { $0 < 0x20 } == [UInt8(ascii: "\n")])
        }
    }

    /// Text with nothing hostile (bytes near the hostile ones included) is the line as it was, with a newline.
    @Test func aPlainLineIsCopiedAsItIs() {
        for text in ["", "short", "https://example.com/tap/123456789", " !~\u{A0}¡Â é ØÙ ã ⁂ 東京 🚪 — twelve bytes more"] {
            let line = Array(text.utf8).withUnsafeBufferPointer(TerminalText.escapedLine)
            #expect(line == Array((text + "\n").utf8))
        }
    }

    @Test func aMessageOfSeveralLinesKeepsItsLineBreaks() {
        #expect(TerminalText.escaped("a\n\u{1B}[2Jb\r\n", keepingLineBreaks: true) == "a\n\\u001b[2Jb\\u000d\n")
    }

    /// JSON written for a terminal stays JSON with the same value.
    @Test func escapedJSONParsesToTheSameString() throws {
        let hostile = "\u{1B}]0;OWNED\u{07} \u{9B}2J \u{202E}x"
        let json = TerminalText.escaped(JSONValue.object(JSONObject(["uri": .string(hostile)])).serialized())
        #expect(!json.unicodeScalars.contains(where: TerminalText.isHostile))
        #expect(try JSONValue.parse(json)["uri"] == .string(hostile))
    }
}

import FoundationEssentials
import Glibc
import NDEF
import SystemKit

/// Where `decode` reads its bytes from: an argument, a file or stdin, as hex or raw.
enum DecodeInput {
    static func read(positionals: [String], file: String?, raw: Bool) throws(CLIError) -> [UInt8] {
        switch (positionals, file) {
        case ([], let path?):
            guard let data = FileManager.default.contents(atPath: path) else {
                throw .runtime("cannot read '\(path)'")
            }
            return try bytes(of: data, raw: raw)
        case (["-"], nil):
            guard let input = FileBytes.read(descriptor: STDIN_FILENO) else { throw .runtime("cannot read stdin: \(String(cString: strerror(errno)))") }
            return try bytes(of: Data(input), raw: raw)
        case (let words, nil) where !words.isEmpty && !words.contains("-"):
            if raw { throw .usage("--raw applies to --file and stdin, not to hex arguments") }
            return try hex(words.joined())
        case ([], nil):
            throw .usage("give the message as HEX, --file PATH or - (stdin)")
        default:
            throw .usage("give one input: HEX, --file PATH or - (stdin)")
        }
    }

    /// Hex text with optional whitespace, `:` separators and a `0x` prefix.
    static func hexBytes(_ text: String) -> [UInt8]? {
        hexBytes(utf8: Array(text.utf8)[...])
    }

    /// `hexBytes(_:)` on UTF-8 bytes, such as a line of `decode --lines` input.
    static func hexBytes<Text: BidirectionalCollection<UInt8>>(utf8 text: Text) -> [UInt8]? where Text.SubSequence == Text {
        var digits = text.trimmingASCIIWhitespace()
        if digits.starts(with: "0x".utf8) || digits.starts(with: "0X".utf8) { digits = digits.dropFirst(2) }
        return Hex.bytes(utf8: digits)
    }

    private static func bytes(of data: Data, raw: Bool) throws(CLIError) -> [UInt8] {
        raw ? [UInt8](data) : try hex(String(decoding: data, as: UTF8.self))
    }

    private static func hex(_ text: String) throws(CLIError) -> [UInt8] {
        guard let bytes = hexBytes(text) else {
            throw .data("bad-hex at byte 0: the input is not hex (use --raw for bytes)")
        }
        return bytes
    }
}

extension BidirectionalCollection<UInt8> where SubSequence == Self {
    /// Without spaces, tabs, carriage returns and newlines at either end.
    func trimmingASCIIWhitespace() -> Self {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
        var start = startIndex
        var end = endIndex
        while start < end, isSpace(self[start]) { formIndex(after: &start) }
        while end > start, isSpace(self[index(before: end)]) { formIndex(before: &end) }
        return self[start..<end]
    }
}

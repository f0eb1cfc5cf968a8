/// The payload of a well-known Text record: the text, its IANA language tag and the
/// encoding it was stored in.
public struct NDEFText: Sendable, Equatable {
    /// How the text bytes are encoded (status byte bit 7).
    public enum Encoding: String, Sendable, Equatable {
        case utf8 = "UTF-8"
        case utf16 = "UTF-16"
    }

    public var text: String
    /// IANA language tag such as `en` or `de-CH`.
    public var language: String
    public var encoding: Encoding

    public init(text: String, language: String, encoding: Encoding = .utf8) {
        self.text = text
        self.language = language
        self.encoding = encoding
    }

    /// Decodes a Text payload. UTF-16 follows a BOM when there is one and is
    /// big-endian otherwise (RFC 2781 §4.3).
    public init(payload: some Collection<UInt8>) throws(NDEFError) {
        let bytes = Array(payload)
        let layout = try Self.check(bytes)
        let language = String(decoding: bytes[1..<layout.textStart], as: UTF8.self)
        let body = bytes[layout.textStart...]
        switch layout.encoding {
        case .utf8: self.init(text: String(decoding: body, as: UTF8.self), language: language, encoding: .utf8)
        case .utf16: self.init(text: String(decoding: Self.utf16Units(body), as: UTF16.self), language: language, encoding: .utf16)
        }
    }

    /// Checks a Text payload without building strings: status byte, language length,
    /// and that language and text are valid in their encoding.
    static func check(_ bytes: [UInt8]) throws(NDEFError) -> (textStart: Int, encoding: Encoding) {
        guard let status = bytes.first else {
            throw NDEFError(.textBadLangLength, at: 0, "Text payload is empty; it needs a status byte")
        }
        let languageLength = Int(status & 0x3F)
        guard languageLength > 0, languageLength < bytes.count else {
            throw NDEFError(.textBadLangLength, at: 0,
                            "Text language length \(languageLength) must be 1…\(bytes.count - 1) for this payload")
        }
        guard isValidUTF8(bytes[1...languageLength]) else {
            throw NDEFError(.textBadEncoding, at: 1, "Text language code is not ASCII")
        }
        let start = 1 + languageLength
        if status & 0x80 == 0 {
            guard isValidUTF8(bytes[start...]) else {
                throw NDEFError(.textBadEncoding, at: start, "Text is not valid UTF-8")
            }
            return (start, .utf8)
        }
        guard bytes[start...].count.isMultiple(of: 2), isValidUTF16(utf16Units(bytes[start...])) else {
            throw NDEFError(.textBadEncoding, at: start, "Text is not valid UTF-16 (odd length or a lone surrogate)")
        }
        return (start, .utf16)
    }

    /// The Text payload: status byte, language tag, text (UTF-16 written big-endian with no BOM).
    public var payload: [UInt8] {
        let languageBytes = Array(language.utf8.prefix(0x3F))
        var bytes: [UInt8] = [UInt8(languageBytes.count) | (encoding == .utf16 ? 0x80 : 0)]
        bytes += languageBytes
        switch encoding {
        case .utf8:
            bytes += text.utf8
        case .utf16:
            for unit in text.utf16 { bytes += [UInt8(unit >> 8), UInt8(unit & 0xFF)] }
        }
        return bytes
    }

    /// The UTF-16 code units of a text body: byte order from a BOM (dropped), else big-endian.
    private static func utf16Units(_ bytes: ArraySlice<UInt8>) -> [UInt16] {
        var body = bytes
        var bigEndian = true
        if body.starts(with: [0xFE, 0xFF]) {
            body = body.dropFirst(2)
        } else if body.starts(with: [0xFF, 0xFE]) {
            body = body.dropFirst(2)
            bigEndian = false
        }
        var units: [UInt16] = []
        units.reserveCapacity(body.count / 2)
        var index = body.startIndex
        while index + 1 < body.endIndex {
            let first = UInt16(body[index]), second = UInt16(body[index + 1])
            units.append(bigEndian ? first << 8 | second : second << 8 | first)
            index += 2
        }
        return units
    }

    /// True when every surrogate is part of a high–low pair.
    private static func isValidUTF16(_ units: [UInt16]) -> Bool {
        var index = 0
        while index < units.count {
            switch units[index] {
            case 0xD800..<0xDC00:
                guard index + 1 < units.count, (0xDC00..<0xE000).contains(units[index + 1]) else { return false }
                index += 2
            case 0xDC00..<0xE000:
                return false
            default:
                index += 1
            }
        }
        return true
    }
}

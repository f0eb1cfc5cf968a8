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
        guard let status = bytes.first else {
            throw NDEFError(.textBadLangLength, at: 0, "Text payload is empty; it needs a status byte")
        }
        let languageLength = Int(status & 0x3F)
        guard languageLength > 0, languageLength < bytes.count else {
            throw NDEFError(.textBadLangLength, at: 0,
                            "Text language length \(languageLength) must be 1…\(bytes.count - 1) for this payload")
        }
        guard let language = String(validating: bytes[1...languageLength], as: UTF8.self) else {
            throw NDEFError(.textBadEncoding, at: 1, "Text language code is not ASCII")
        }
        let start = 1 + languageLength
        let body = bytes[start...]
        if status & 0x80 == 0 {
            guard let text = String(validating: body, as: UTF8.self) else {
                throw NDEFError(.textBadEncoding, at: start, "Text is not valid UTF-8")
            }
            self.init(text: text, language: language, encoding: .utf8)
        } else {
            guard let text = Self.utf16(body) else {
                throw NDEFError(.textBadEncoding, at: start, "Text is not valid UTF-16 (odd length or a lone surrogate)")
            }
            self.init(text: text, language: language, encoding: .utf16)
        }
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

    private static func utf16(_ bytes: ArraySlice<UInt8>) -> String? {
        guard bytes.count.isMultiple(of: 2) else { return nil }
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
        while index < body.endIndex {
            let first = UInt16(body[index]), second = UInt16(body[index + 1])
            units.append(bigEndian ? first << 8 | second : second << 8 | first)
            index += 2
        }
        return String(validating: units, as: UTF16.self)
    }
}

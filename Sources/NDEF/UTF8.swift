/// UTF-8 text from bytes, nil when they are not valid UTF-8.
func utf8String(_ bytes: some Collection<UInt8>) -> String? {
    isValidUTF8(bytes) ? String(decoding: bytes, as: UTF8.self) : nil
}

/// True when `bytes` are well-formed UTF-8 (Unicode Table 3-7: no overlongs, no
/// surrogates, nothing past U+10FFFF). Allocates nothing.
func isValidUTF8(_ bytes: some Collection<UInt8>) -> Bool {
    if let valid = bytes.withContiguousStorageIfAvailable(isValidUTF8(buffer:)) { return valid }
    return Array(bytes).withUnsafeBufferPointer(isValidUTF8(buffer:))
}

private func isValidUTF8(buffer bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    let count = bytes.count
    var index = 0
    func continuation(_ offset: Int) -> Bool { bytes[index + offset] & 0xC0 == 0x80 }
    while index < count {
        let lead = bytes[index]
        switch lead {
        case 0x00..<0x80:
            index += 1
        case 0xC2..<0xE0:
            guard count - index >= 2, continuation(1) else { return false }
            index += 2
        case 0xE0..<0xF0:
            guard count - index >= 3, continuation(2) else { return false }
            let second = bytes[index + 1]
            let low: UInt8 = lead == 0xE0 ? 0xA0 : 0x80, high: UInt8 = lead == 0xED ? 0x9F : 0xBF
            guard (low...high).contains(second) else { return false }
            index += 3
        case 0xF0..<0xF5:
            guard count - index >= 4, continuation(2), continuation(3) else { return false }
            let second = bytes[index + 1]
            let low: UInt8 = lead == 0xF0 ? 0x90 : 0x80, high: UInt8 = lead == 0xF4 ? 0x8F : 0xBF
            guard (low...high).contains(second) else { return false }
            index += 4
        default:
            return false
        }
    }
    return true
}

/// The essence of a media type: the TYPE bytes before any `;`, without surrounding
/// spaces and tabs, compared case-insensitively (ASCII) without allocating.
struct MediaTypeEssence {
    let bytes: ArraySlice<UInt8>

    init(_ type: [UInt8]) {
        var end = type.firstIndex(of: UInt8(ascii: ";")) ?? type.endIndex
        var start = type.startIndex
        while start < end, type[start] == 0x20 || type[start] == 0x09 { start += 1 }
        while end > start, type[end - 1] == 0x20 || type[end - 1] == 0x09 { end -= 1 }
        bytes = type[start..<end]
    }

    /// True when the essence is `name` (lowercase ASCII), ignoring case.
    func equals(_ name: [UInt8]) -> Bool {
        bytes.count == name.count && hasPrefix(name)
    }

    /// True when the essence starts with `prefix` (lowercase ASCII), ignoring case.
    func hasPrefix(_ prefix: [UInt8]) -> Bool {
        guard bytes.count >= prefix.count else { return false }
        var index = bytes.startIndex
        for byte in prefix {
            guard asciiLowercased(bytes[index]) == byte else { return false }
            index += 1
        }
        return true
    }

    static let wifi = Array(WiFiCredential.mediaType.utf8)
    static let bluetooth = Array(BluetoothOOB.mediaType.utf8)
    static let androidApp = Array(AndroidApplicationRecord.type.utf8)
    static let json = Array("application/json".utf8)
    static let text = Array("text/".utf8)
}

/// The byte with an ASCII capital made lowercase (type names compare case-insensitively).
func asciiLowercased(_ byte: UInt8) -> UInt8 {
    (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
}

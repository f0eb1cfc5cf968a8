/// The URI identifier codes of the NFC Forum URI RTD: code `n` stands for `table[n]`.
enum URIPrefix {
    static let table: [String] = [
        "", "http://www.", "https://www.", "http://", "https://", "tel:", "mailto:",
        "ftp://anonymous:anonymous@", "ftp://ftp.", "ftps://", "sftp://", "smb://", "nfs://",
        "ftp://", "dav://", "news:", "telnet://", "imap:", "rtsp://", "urn:", "pop:", "sip:",
        "sips:", "tftp:", "btspp://", "btl2cap://", "btgoep://", "tcpobex://", "irdaobex://",
        "file://", "urn:epc:id:", "urn:epc:tag:", "urn:epc:pat:", "urn:epc:raw:", "urn:epc:",
        "urn:nfc:",
    ]

    /// The table's prefixes as bytes, longest first, for the encoder.
    private static let byLength: [(code: UInt8, bytes: [UInt8])] = table.enumerated()
        .filter { !$0.element.isEmpty }
        .map { (UInt8($0.offset), Array($0.element.utf8)) }
        .sorted { $0.bytes.count > $1.bytes.count }

    /// The URI record payload for `uri`: the code of the longest matching prefix, then the rest.
    static func payload(for uri: String) -> [UInt8] {
        let bytes = Array(uri.utf8)
        for entry in byLength where bytes.starts(with: entry.bytes) {
            return [entry.code] + bytes[entry.bytes.count...]
        }
        return [0] + bytes
    }

    /// The URI a URI record payload stands for.
    static func decode(_ payload: ArraySlice<UInt8>) throws(NDEFError) -> String {
        let code = try check(payload)
        return table[Int(code)] + String(decoding: payload.dropFirst(), as: UTF8.self)
    }

    /// Checks a URI record payload without building the URI; returns the identifier code.
    @discardableResult
    static func check(_ payload: ArraySlice<UInt8>) throws(NDEFError) -> UInt8 {
        guard let code = payload.first else {
            throw NDEFError(.uriBadPrefixCode, at: 0, "URI payload is empty; it needs an identifier code")
        }
        guard Int(code) < table.count else {
            throw NDEFError(.uriBadPrefixCode, at: 0, "URI identifier code 0x\(Hex.string([code])) is not defined")
        }
        guard isValidUTF8(payload.dropFirst()) else {
            throw NDEFError(.uriBadUTF8, at: 1, "URI field is not valid UTF-8")
        }
        return code
    }
}

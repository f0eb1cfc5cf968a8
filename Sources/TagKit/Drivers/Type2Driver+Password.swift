import NDEF

/// NTAG 213/215/216 passwords from the reader's side (data sheet §8.9): whether
/// the tag's writes need one, PWD_AUTH with the PACK checked, and protecting a
/// tag — PWD and PACK first, then ACCESS (PROT clear: writes only; CFGLCK never
/// set), AUTH0 last, since from that write on the configuration itself is guarded.
extension Type2Driver {
    /// The first page whose writes need the password (AUTH0) — nil when nothing is
    /// guarded or the chip has no password (MIFARE Ultralight).
    public func firstPasswordProtectedPage() throws(TagDriverError) -> Int? {
        guard let (type, pages) = passwordLayout else { return nil }
        let auth0 = Int(try configuration(pages)[3])
        return auth0 < type.pageCount ? auth0 : nil
    }

    /// Whether the chip has a password (NTAG 213/215/216, not the original Ultralight).
    public var takesPassword: Bool { passwordLayout != nil }

    /// PWD_AUTH with `password` (4 bytes); throws unless the tag answers `pack` (2 bytes).
    public func authenticate(password: [UInt8], pack: [UInt8]) throws(TagDriverError) {
        let answer: [UInt8]
        do throws(TagTransportError) {
            answer = try transport.transceive([0x1B] + password)
        } catch {
            if case .refused = error { throw .passwordRefused(tagType: tagType) }
            throw .transport(error)
        }
        guard answer.count == 2 else { throw .unexpectedAnswer("\(answer.count) bytes to PWD_AUTH, expected the 2-byte PACK") }
        guard answer == pack else { throw .packMismatch(got: answer, expected: pack) }
    }

    /// Sets PWD and PACK and makes writes from `firstPage` on need the password (reads stay
    /// open), then checks with PWD_AUTH that the tag answers `pack`. The caller has
    /// authenticated first when the tag was protected already.
    public func protect(password: [UInt8], pack: [UInt8], from firstPage: Int = Type2Memory.dataAreaOffset / 4) throws(TagDriverError) {
        guard let (_, pages) = passwordLayout else {
            throw .unsupported("only NTAG 213, 215 and 216 take a password; this is a \(TagDriverError.displayName(tagType))")
        }
        let current = try configuration(pages)
        guard current[4] & NTAGConfigurationPages.configurationLock == 0 else {
            throw .unsupported("this \(TagDriverError.displayName(tagType))'s configuration is locked for ever (CFGLCK): its protection cannot be changed")
        }
        try writePage(pages.pwd, password)
        try writePage(pages.pack, pack + [0x00, 0x00])
        try writePage(pages.cfg1, [current[4] & ~NTAGConfigurationPages.readProtection] + current[5...7])
        try writePage(pages.cfg0, Array(current[0...2]) + [UInt8(firstPage)])
        guard try configuration(pages)[3] == UInt8(firstPage) else { throw .verifyFailed(offset: pages.cfg0 * 4 + 3) }
        try authenticate(password: password, pack: pack)
    }

    /// The chip and its configuration pages, for NTAG 213/215/216.
    private var passwordLayout: (Type2TagType, NTAGConfigurationPages)? {
        guard let type = Type2TagType(name: tagType), let pages = NTAGConfigurationPages(type) else { return nil }
        return (type, pages)
    }

    /// CFG0 and CFG1 (8 bytes) as one READ returns them.
    private func configuration(_ pages: NTAGConfigurationPages) throws(TagDriverError) -> [UInt8] {
        Array(try transport.exchange([0x30, UInt8(pages.cfg0)], expecting: 16).prefix(8))
    }
}

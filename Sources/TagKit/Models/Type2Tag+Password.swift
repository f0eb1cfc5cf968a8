/// The password protection of NTAG 213/215/216 (data sheet §8.9, §10.7) in the model:
/// PWD_AUTH answers the PACK for the right password and NAKs any other; from page
/// AUTH0 on, writes need it — and reads too when ACCESS.PROT is set; CFGLCK keeps
/// CFG0 and CFG1 as they are; PWD and PACK read as zeros. AUTHLIM is not modelled.
extension Type2Tag {
    private var passwordPages: NTAGConfigurationPages? { NTAGConfigurationPages(tagType) }

    /// The first page the password protects (AUTH0); past the last page: none.
    private var firstProtectedPage: Int { passwordPages.map { Int(memory[$0.cfg0 * 4 + 3]) } ?? Int.max }

    /// The ACCESS byte (CFG1 byte 0).
    private var access: UInt8 { passwordPages.map { memory[$0.cfg1 * 4] } ?? 0 }

    /// Whether `page` is PWD or PACK, which never read back.
    func isSecret(page: Int) -> Bool {
        guard let pages = passwordPages else { return false }
        return page == pages.pwd || page == pages.pack
    }

    /// Whether a READ may return `page` now: always, unless PROT protects it and no PWD_AUTH succeeded.
    func mayRead(_ page: Int) -> Bool {
        passwordVerified || access & NTAGConfigurationPages.readProtection == 0 || page < firstProtectedPage
    }

    /// NAKs a write to a page the password protects (without a PWD_AUTH first) or
    /// to CFG0/CFG1 when CFGLCK locked them; the tag then forgets any authentication.
    mutating func checkPasswordProtection(writing page: Int) throws(TagTransportError) {
        let configurationLocked = access & NTAGConfigurationPages.configurationLock != 0
        let locked = configurationLocked && passwordPages.map { page == $0.cfg0 || page == $0.cfg1 } == true
        guard locked || (page >= firstProtectedPage && !passwordVerified) else { return }
        passwordVerified = false
        throw Self.nak
    }

    /// PWD_AUTH: the PACK when `password` is the tag's PWD; otherwise a NAK.
    mutating func passwordAuthentication(_ password: [UInt8]) throws(TagTransportError) -> [UInt8] {
        guard let pages = passwordPages, password == Array(memory[(pages.pwd * 4)..<(pages.pwd * 4 + 4)]) else {
            passwordVerified = false
            throw Self.nak
        }
        passwordVerified = true
        return Array(memory[(pages.pack * 4)..<(pages.pack * 4 + 2)])
    }
}

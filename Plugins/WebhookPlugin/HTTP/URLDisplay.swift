/// A URL as logs and `check-config` show it: the `user:password@` part masked.
enum URLDisplay {
    /// `https://user:pw@host/x` → `https://***@host/x`; other URLs unchanged.
    static func maskingUserinfo(_ url: String) -> String {
        guard let schemeEnd = url.firstRange(of: "://") else { return url }
        let authority = url[schemeEnd.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard let at = authority.lastIndex(of: "@") else { return url }
        return String(url[..<schemeEnd.upperBound]) + "***" + String(url[at...])
    }
}

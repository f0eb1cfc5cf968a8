import TagRouter

/// The load-time check of a webhook URL, as far as its literal start decides it
/// (`http://{{env.HOST}}/…` fixes the scheme; `{{uri}}` decides nothing until a
/// tag is read): `ftp://x` or `not a url` is an error at load, not a failure at
/// the first tap.
enum WebhookURLShape {
    /// What is wrong with `url`, or nil when nothing known yet is wrong.
    static func problem(_ url: Template) -> String? {
        var known = url.literalPrefix
        var complete = url.isConstant
        if let placeholder = known.firstRange(of: "${"), !url.unsetEnvironment.isEmpty {
            known = String(known[..<placeholder.lowerBound])
            complete = false
        }
        guard let colon = known.firstIndex(of: ":") else {
            let couldBeAScheme = known.allSatisfy { $0.isLetter || $0.isNumber || "+-.".contains($0) }
            return complete || !couldBeAScheme ? "expected an http:// or https:// URL, got '\(url.source)'" : nil
        }
        let scheme = known[..<colon].lowercased()
        guard scheme == "http" || scheme == "https" else {
            return "the scheme '\(scheme)' is not supported; webhooks go to http:// or https:// URLs"
        }
        if known.contains(where: \.isWhitespace) { return "a URL cannot contain spaces or line breaks (write %20 for a space)" }
        let rest = known[known.index(after: colon)...]
        guard rest.hasPrefix("//") else {
            return complete || !"//".hasPrefix(rest) ? "expected '//' and a host after '\(scheme):', got '\(url.source)'" : nil
        }
        let authority = rest.dropFirst(2)
        let host = authority.prefix { !"/?#:".contains($0) }
        if host.isEmpty, complete || host.count < authority.count {
            return "the URL has no host: expected \(scheme)://HOST/…"
        }
        return nil
    }
}

import FoundationEssentials
import TagRouter

/// Checks a request rendered from an event before libcurl sees it. Tag text can
/// reach the URL and header values; it must not smuggle a header (CR, LF, NUL or
/// any other control character in a value), turn the URL into something other
/// than http(s), or move it to a host the `url` template does not name.
struct RenderedRequestCheck {
    /// The host the `url` template's fixed start names (`ha.local` in
    /// `https://ha.local:8123/api/{{text}}`; `{{env.…}}` values count, they come
    /// from the operator), lowercased; nil when the host comes from the event.
    let literalHost: String?

    init(url template: Template) {
        literalHost = Self.host(namedBy: template.fixedPrefix)
    }

    /// Why `request` must not be sent, or nil.
    func problem(with request: HTTPRequest) -> String? {
        for header in request.headers {
            if let bad = ForbiddenCharacter.first(in: header.value, { $0 == "\t" ? nil : ForbiddenCharacter.control($0) }) {
                return "header '\(header.name)' has \(bad)"
            }
        }
        return problem(withURL: request.url)
    }

    private func problem(withURL url: String) -> String? {
        if let bad = ForbiddenCharacter.first(in: url, { $0 == " " ? "a space" : ForbiddenCharacter.control($0) }) {
            return "the URL has \(bad)"
        }
        let parts = URLComponents(string: url)
        if let scheme = parts?.scheme?.lowercased(), scheme != "http", scheme != "https" {
            return "the URL's scheme is '\(scheme)'; only http and https are sent"
        }
        guard let host = parts?.host?.lowercased(), !host.isEmpty, parts?.scheme != nil else {
            return "the URL does not parse as a URL with a host"
        }
        if let literalHost, host != literalHost {
            return "the URL's host is '\(host)' but the url template names '\(literalHost)'"
        }
        return nil
    }

    /// The host in `prefix` when it holds `scheme://` and at least one character of the host.
    private static func host(namedBy prefix: String) -> String? {
        guard let separator = prefix.firstRange(of: "://") else { return nil }
        let authority = prefix[separator.upperBound...].prefix { !"/?#".contains($0) }
        let afterUser = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? authority
        let host = afterUser.hasPrefix("[")
            ? afterUser.dropFirst().prefix { $0 != "]" }
            : afterUser.prefix { $0 != ":" }
        return host.isEmpty ? nil : host.lowercased()
    }
}

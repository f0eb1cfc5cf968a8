import TagRouter

/// Who may send a request that changes something, judged by where it says it
/// comes from. A loopback listener answers only a `Host` naming loopback
/// (`127.0.0.1`, `localhost`, `[::1]`) with its own port: a web page whose own
/// name was made to resolve to 127.0.0.1 (DNS rebinding) sends its own name.
/// A browser's `Origin`, when sent, must be this very listener as the `Host`
/// names it: no other site's page may write, and no CORS header is ever answered.
struct OriginCheck: Sendable {
    let address: ListenAddress

    /// Why `request` is refused, or nil when it comes from this listener.
    func problem(_ request: HTTPRequest) -> String? {
        guard let host = request[header: "Host"]?.lowercased(), !host.isEmpty else {
            return "the request has no Host header"
        }
        if address.isLoopback, !Self.namesLoopback(host, port: address.port) {
            return "Host '\(host)' is not this listener (\(address)); a loopback listener answers only 127.0.0.1, localhost or [::1] with port \(address.port)"
        }
        return originProblem(request, host: host)
    }

    /// Why a request that only reads (`/metrics`, `/api/status`, `/api/events`) is refused: on a loopback
    /// listener a `Host` naming anything but loopback — a page whose name was made to resolve to
    /// 127.0.0.1 reading the taps — or an `Origin` that is not this listener. A client that sends no
    /// `Host`, or loopback without the port (a scraper, curl), is no browser page and is answered.
    func readProblem(_ request: HTTPRequest) -> String? {
        guard let host = request[header: "Host"]?.lowercased(), !host.isEmpty else { return nil }
        if address.isLoopback, !Self.namesLoopback(host, port: nil) {
            return "Host '\(host)' is not this listener (\(address)); a loopback listener answers only 127.0.0.1, localhost or [::1]"
        }
        return originProblem(request, host: host)
    }

    /// Why the `Origin` a browser sent is refused: it is not this listener as `host` names it.
    private func originProblem(_ request: HTTPRequest, host: String) -> String? {
        guard let origin = request[header: "Origin"]?.lowercased(), origin != "http://" + host, origin != "https://" + host else { return nil }
        return "Origin '\(origin)' is not this listener (http://\(host)): another site's page may not use it"
    }

    /// True when `host` (`name[:port]`) names this machine's loopback with `port` (80 when none is given);
    /// any port when `port` is nil.
    private static func namesLoopback(_ host: String, port: UInt16?) -> Bool {
        var name = Substring(host)
        var given: UInt16 = 80
        if let colon = host.lastIndex(of: ":"), !host.hasSuffix("]") {
            guard let number = UInt16(host[host.index(after: colon)...]) else { return false }
            given = number
            name = host[..<colon]
        }
        guard port == nil || given == port else { return false }
        if name == "localhost" || name == "[::1]" { return true }
        guard let address = ListenAddress("\(name):\(given)"), address.family == .ipv4 else { return false }
        return address.isLoopback
    }
}

import FoundationEssentials
import Glibc

/// Where an HTTP listener binds: an IP literal and a port, from `host:port`
/// text (`127.0.0.1:9464`, `[::1]:9464`, `0.0.0.0:9464`, `localhost:9464`).
/// Port 0 lets the system pick a free one.
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    /// The IP address family of `host`.
    public enum Family: Sendable {
        case ipv4, ipv6
    }

    /// The address literal, without brackets.
    public var host: String
    public var port: UInt16
    public var family: Family

    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else { return nil }
        var host = String(text[..<colon])
        if host == "localhost" { host = "127.0.0.1" }
        if host.hasPrefix("["), host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
            guard Self.parses(host, family: AF_INET6) else { return nil }
            family = .ipv6
        } else {
            guard Self.parses(host, family: AF_INET) else { return nil }
            family = .ipv4
        }
        self.host = host
        self.port = port
    }

    /// True for 127.0.0.0/8 and ::1: only this machine can connect.
    public var isLoopback: Bool {
        switch family {
        case .ipv4: return host.split(separator: ".").first == "127"
        case .ipv6: return host == "::1"
        }
    }

    public var description: String { family == .ipv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    private static func parses(_ host: String, family: Int32) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        return inet_pton(family, host, &buffer) == 1
    }
}

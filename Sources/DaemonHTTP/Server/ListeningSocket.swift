@preconcurrency import Glibc
import TagRouter

/// A TCP socket bound and listening at a `ListenAddress`, before the HTTP
/// server takes it over: binding here lets a daemon that cannot listen say
/// exactly why (the address in use, not on this machine) and not start.
struct ListeningSocket: Sendable {
    let fd: Int32
    /// The address as bound: port 0 in the settings becomes the port the system chose.
    let address: ListenAddress

    init(_ address: ListenAddress) throws(HTTPError) {
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(address.host, String(address.port), &hints, &found) == 0, let info = found?.pointee else {
            throw HTTPError("cannot listen on \(address): not an IP address")
        }
        defer { freeaddrinfo(found) }
        let fd = socket(info.ai_family, info.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HTTPError("cannot listen on \(address): socket: \(Self.lastError)") }
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        if info.ai_family == AF_INET6 { _ = setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &on, socklen_t(MemoryLayout<Int32>.size)) }
        guard bind(fd, info.ai_addr, info.ai_addrlen) == 0, listen(fd, 64) == 0 else {
            let reason = errno == EADDRINUSE
                ? "the address is in use (another tagrouter, or another exporter on that port); choose another port in `metrics.listen`"
                : errno == EADDRNOTAVAIL ? "no interface of this machine has that address" : Self.lastError
            close(fd)
            throw HTTPError("cannot listen on \(address): \(reason)")
        }
        self.fd = fd
        var bound = address
        bound.port = Self.boundPort(fd) ?? address.port
        self.address = bound
    }

    private static var lastError: String { String(cString: strerror(errno)) }

    /// The port `fd` is bound to, from `getsockname` as `getnameinfo` spells it.
    private static func boundPort(_ fd: Int32) -> UInt16? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        var service = [CChar](repeating: 0, count: 16)
        let named = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                getsockname(fd, address, &length) == 0
                    && getnameinfo(address, length, nil, 0, &service, socklen_t(service.count), NI_NUMERICSERV) == 0
            }
        }
        return named ? UInt16(String(decoding: service.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)) : nil
    }
}

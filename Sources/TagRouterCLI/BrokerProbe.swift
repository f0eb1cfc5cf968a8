@preconcurrency import Glibc

/// Whether something accepts TCP connections at `host:port` within `timeout`: the
/// doctor's "is the MQTT broker reachable" (it says nothing of MQTT itself).
enum BrokerProbe {
    /// nil when connected, else why not ("connection refused", "no answer within 2 s", "unknown host").
    static func failure(host: String, port: Int, timeout: Duration = .seconds(2)) -> String? {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else { return "unknown host" }
        defer { freeaddrinfo(list) }
        var reason = "no address"
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let address = entry?.pointee {
            entry = address.ai_next
            let descriptor = socket(address.ai_family, address.ai_socktype | Int32(SOCK_NONBLOCK.rawValue), address.ai_protocol)
            guard descriptor >= 0 else { continue }
            defer { close(descriptor) }
            if connect(descriptor, address.ai_addr, address.ai_addrlen) == 0 { return nil }
            guard errno == EINPROGRESS else {
                reason = String(cString: strerror(errno))
                continue
            }
            var poller = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            let milliseconds = Int32(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
            guard poll(&poller, 1, milliseconds) == 1 else {
                reason = "no answer within \(timeout)"
                continue
            }
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &length)
            if error == 0 { return nil }
            reason = String(cString: strerror(error))
        }
        return reason.lowercased()
    }
}

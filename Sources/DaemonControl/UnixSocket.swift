@preconcurrency import Glibc

/// A connected or listening UNIX stream socket: the file descriptor and the few
/// blocking calls the control server and client make on it.
struct UnixSocket: Sendable {
    let fd: Int32

    /// `sockaddr_un` for `path`, handed to `body`.
    private static func withAddress<Result>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) throws(ControlError) -> Result {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let room = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < room else { throw .socket("the control socket path is longer than \(room - 1) bytes: \(path)") }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes + [0]) }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }

    private static func make() throws(ControlError) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .socket("cannot create a UNIX socket: \(String(cString: strerror(errno)))") }
        return fd
    }

    /// Connects to the socket at `path`.
    static func connect(to path: String) throws(ControlError) -> UnixSocket {
        let fd = try make()
        let status = try withAddress(path) { Glibc.connect(fd, $0, $1) }
        guard status == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            throw .noDaemon(path: path, reason: reason)
        }
        return UnixSocket(fd: fd)
    }

    /// Listens at `path` with `mode`; a stale socket file there (no one answers) is replaced.
    static func listen(at path: String, mode: mode_t) throws(ControlError) -> UnixSocket {
        var status = stat()
        if lstat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFSOCK else { throw .socket("\(path) exists and is not a socket; choose another --control PATH") }
            if let live = try? connect(to: path) {
                live.close()
                throw .socket("another daemon already answers at \(path); give this one its own --control PATH")
            }
            unlink(path)
        }
        let fd = try make()
        let bound = try withAddress(path) { bind(fd, $0, $1) }
        guard bound == 0, chmod(path, mode) == 0, Glibc.listen(fd, 16) == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            throw .socket("cannot listen on \(path): \(reason)")
        }
        return UnixSocket(fd: fd)
    }

    /// Writes all of `text`; false when the peer has gone.
    @discardableResult
    func write(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let written = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return false }
            sent += written
        }
        return true
    }

    /// Makes a `write` that cannot go on for `limit` fail (the peer stopped reading).
    func setSendTimeout(_ limit: Duration) {
        var time = timeval(tv_sec: Int(limit.components.seconds), tv_usec: Int(limit.components.attoseconds / 1_000_000_000_000))
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Ends both directions: a thread blocked reading or accepting on it returns.
    func shutDown() { shutdown(fd, Int32(SHUT_RDWR)) }

    func close() { Glibc.close(fd) }
}

/// Lines from a socket, one at a time, each read bounded by a deadline when asked.
struct SocketLines {
    let socket: UnixSocket
    private var pending: [UInt8] = []
    /// Longest line accepted; a peer sending more is cut off.
    static let limit = 1 << 20

    init(_ socket: UnixSocket) { self.socket = socket }

    /// The next line without its newline; nil at the end of the input, on an
    /// error, when the whole line has not come within `timeout` (milliseconds;
    /// -1 waits for ever), or a line over the limit.
    mutating func next(timeout: Int32 = -1) -> String? {
        let deadline = ContinuousClock.now + .milliseconds(timeout)
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                defer { pending.removeSubrange(...newline) }
                return String(decoding: pending[..<newline], as: UTF8.self)
            }
            let left = timeout < 0 ? -1 : Int32(clamping: Int64(max(0, (deadline - ContinuousClock.now) / .milliseconds(1))))
            guard pending.count <= Self.limit, readable(timeout: left) else { return nil }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = buffer.withUnsafeMutableBytes { read(socket.fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return nil }
            pending += buffer.prefix(count)
        }
    }

    /// True when data (or the end) can be read within `timeout` milliseconds.
    func readable(timeout: Int32) -> Bool {
        var poller = pollfd(fd: socket.fd, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&poller, 1, timeout)
            if ready < 0, errno == EINTR { continue }
            return ready > 0
        }
    }
}

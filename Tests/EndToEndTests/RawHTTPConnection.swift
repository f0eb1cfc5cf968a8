@preconcurrency import Glibc
import Harness
import TestSupport

/// One TCP connection to the daemon's HTTP listener for what ordinary clients
/// do not do: half a request left open, a live stream held without reading.
/// Every read is bounded by a deadline.
final class RawHTTPConnection {
    private let fd: Int32
    /// Everything read so far.
    private(set) var received: [UInt8] = []
    /// True once the server closed its side.
    private(set) var closed = false

    /// Connects to 127.0.0.1:`port`.
    init(port: Int) throws {
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo("127.0.0.1", String(port), &hints, &found) == 0, let info = found?.pointee else {
            throw TestFailure(description: "no address for 127.0.0.1:\(port)")
        }
        defer { freeaddrinfo(found) }
        fd = socket(info.ai_family, info.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0, connect(fd, info.ai_addr, info.ai_addrlen) == 0 else {
            let reason = String(cString: strerror(errno))
            if fd >= 0 { close(fd) }
            throw TestFailure(description: "cannot connect to 127.0.0.1:\(port): \(reason)")
        }
    }

    deinit { close(fd) }

    var text: String { String(decoding: received, as: UTF8.self) }

    /// Sends `text` as is; false when the server has closed the connection.
    @discardableResult
    func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    /// Ends the connection from this side (both directions), as a closed browser tab does.
    func hangUp() {
        shutdown(fd, Int32(SHUT_RDWR))
    }

    /// Reads until what arrived contains `expected`, or the server closed; throws when neither happens within `timeout`.
    func read(until expected: String, timeout: Duration = .seconds(20)) throws {
        let deadline = ContinuousClock.now + timeout
        while !text.contains(expected), !closed {
            guard try readSome(before: deadline) else {
                throw TestFailure(description: "no '\(expected)' within \(timeout); received: \(text.prefix(300))")
            }
        }
    }

    /// Reads until the server closes the connection; throws when it does not within `timeout`.
    func readUntilClosed(timeout: Duration = .seconds(20)) throws {
        let deadline = ContinuousClock.now + timeout
        while !closed {
            guard try readSome(before: deadline) else { throw TestFailure(description: "the server kept the connection open for \(timeout)") }
        }
    }

    /// Whether the server has closed the connection, looking without waiting.
    func isClosedByServer() throws -> Bool {
        while !closed, try readSome(before: ContinuousClock.now) {}
        return closed
    }

    /// One read of what is there (waiting until `deadline`); false when nothing came in time.
    private func readSome(before deadline: ContinuousClock.Instant) throws -> Bool {
        let left = max(deadline - ContinuousClock.now, .zero)
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)) > 0 else { return false }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count <= 0 { closed = true } else { received += buffer.prefix(count) }
        return true
    }
}

@preconcurrency import Glibc

/// One open connection to a running `tagrouter simulate --control SOCKET`: a
/// request line out, its response line back, each read bounded by a deadline,
/// so a test or benchmark can place and remove tags at a known instant.
public final class ControlConnection {
    private let fd: Int32
    private var pending: [UInt8] = []

    /// Connects to the simulator's control socket at `path`.
    public init(path: String) throws {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw TestFailure(description: "socket path too long: \(path)") }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes + [0]) }
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard fd >= 0, status == 0 else {
            let reason = String(cString: strerror(errno))
            if fd >= 0 { close(fd) }
            throw TestFailure(description: "cannot connect to the simulator at \(path): \(reason)")
        }
    }

    deinit { close(fd) }

    /// Sends one JSON request and returns the response line; throws when none comes within `timeout`.
    @discardableResult
    public func send(_ json: String, timeout: Duration = .seconds(20)) throws -> String {
        let line = Array((json + "\n").utf8)
        let written = line.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard written == line.count else { throw TestFailure(description: "the simulator closed the control connection") }
        let deadline = ContinuousClock.now + timeout
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                defer { pending.removeFirst(newline + 1) }
                return String(decoding: pending[..<newline], as: UTF8.self)
            }
            let left = deadline - ContinuousClock.now
            guard left > .zero else { throw TestFailure(description: "no answer from the simulator to \(json) within \(timeout)") }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(left.components.seconds * 1000 + 1)) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { throw TestFailure(description: "the simulator closed the control connection") }
            pending += buffer.prefix(count)
        }
    }
}

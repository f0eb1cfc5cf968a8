import Foundation
import Glibc
import Harness

/// A datagram socket bound to a path, standing in for systemd's notify socket or
/// journald's: it receives what the code under test sends, one message per datagram.
public final class DatagramListener {
    public let path: String
    private let descriptor: Int32
    /// Every datagram taken so far, in order (touched only by the test's task).
    private var taken: [[UInt8]] = []

    public init(path: String) throws {
        self.path = path
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard descriptor >= 0, bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw TestFailure(description: "cannot make a datagram socket at \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else { throw TestFailure(description: "cannot bind \(path): \(String(cString: strerror(errno)))") }
    }

    deinit { close(descriptor) }

    /// Every datagram that has arrived (the sender has exited, so nothing more is on its way).
    public func received() -> [[UInt8]] {
        var messages: [[UInt8]] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            guard count >= 0 else { return messages }
            messages.append(Array(buffer[..<count]))
        }
    }

    /// Every message taken so far as text, oldest first.
    public var texts: [String] { taken.map { String(decoding: $0, as: UTF8.self) } }

    /// Waits (up to `timeout`) for a message, after the `skip` first, that `matches`,
    /// and returns its index in `texts`.
    @discardableResult
    public func wait(
        for what: String, after skip: Int = 0, timeout: Duration = .seconds(20), _ matches: (String) -> Bool
    ) async throws -> Int {
        let deadline = ContinuousClock.now + timeout
        while true {
            taken += received()
            if let index = texts.indices.dropFirst(skip).first(where: { matches(texts[$0]) }) { return index }
            guard ContinuousClock.now < deadline else {
                throw TestFailure(description: "timed out after \(timeout) waiting for \(what) on \(path); got:\n" + texts.joined(separator: "\n---\n"))
            }
            var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            _ = poll(&waiting, 1, 50)
        }
    }
}

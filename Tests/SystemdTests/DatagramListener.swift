import Foundation
import Glibc
import TestSupport

/// A datagram socket bound to a path, standing in for systemd's notify socket or
/// journald's: it receives what the code under test sends, one message per datagram.
final class DatagramListener {
    let path: String
    private let descriptor: Int32

    init(path: String) throws {
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
    func received() -> [[UInt8]] {
        var messages: [[UInt8]] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            guard count >= 0 else { return messages }
            messages.append(Array(buffer[..<count]))
        }
    }
}

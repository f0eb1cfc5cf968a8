@preconcurrency import Glibc

/// The client side of `simulate --request`: one line to the control socket, one line back.
enum SimulateClient {
    static func send(_ request: String, to path: String) throws(CLIError) -> String {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw .usage("--control path is too long: \(path)") }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: bytes)
            buffer[bytes.count] = 0
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw .runtime("cannot create a socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            throw .runtime("cannot reach the simulator at \(path): \(String(cString: strerror(errno))); is `tagrouter simulate --control \(path)` running?")
        }
        let line = Array((request.replacingNewlines + "\n").utf8)
        var sent = 0
        while sent < line.count {
            let written = line[sent...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard written > 0 else { throw .runtime("the simulator closed the control connection") }
            sent += written
        }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !response.contains(UInt8(ascii: "\n")) {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { throw .runtime("the simulator closed the control connection without answering") }
            response += buffer.prefix(count)
        }
        return String(decoding: response.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
    }
}

private extension String {
    /// A request must be one line: newlines inside a pasted JSON document become spaces.
    var replacingNewlines: String { String(map { $0 == "\n" || $0 == "\r" ? " " : $0 }) }
}

@preconcurrency import Glibc
import FoundationEssentials
import Synchronization
import SystemKit

/// Serves `SimulatorControl` on a Unix socket: any number of clients, each
/// sending JSON request lines and reading one response line per request.
/// Runs until `close()`, which removes the socket file (its threads keep the
/// server alive until then).
public final class ControlSocketServer: Sendable {
    /// Why the socket could not be opened.
    public struct SocketError: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    public let path: String
    private let listener: Int32
    private let control: SimulatorControl
    private let clients = Mutex<Set<Int32>>([])
    private let closed = Atomic<Bool>(false)

    public init(path: String, control: SimulatorControl) throws(SocketError) {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw SocketError(description: "control socket path is longer than \(MemoryLayout.size(ofValue: address.sun_path) - 1) bytes: \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: bytes)
            buffer[bytes.count] = 0
        }
        var status = stat()
        if lstat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFSOCK else {
                throw SocketError(description: "\(path) exists and is not a socket; choose another --control path")
            }
            unlink(path)
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw SocketError(description: "cannot create a Unix socket: \(String(cString: strerror(errno)))") }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(fd, 8) == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            throw SocketError(description: "cannot listen on \(path): \(reason)")
        }
        self.path = path
        listener = fd
        self.control = control
        DedicatedThread.start(name: "simulator accept") { [self] in acceptLoop() }
    }

    /// Stops accepting, hangs up on connected clients and removes the socket file.
    public func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        Glibc.close(listener)
        clients.withLock { fds in
            for fd in fds { shutdown(fd, Int32(SHUT_RDWR)) }
        }
        unlink(path)
    }

    private func acceptLoop() {
        while !closed.load(ordering: .acquiring) {
            let client = accept(listener, nil, nil)
            guard client >= 0 else {
                if errno == EINTR { continue }
                return
            }
            clients.withLock { _ = $0.insert(client) }
            DedicatedThread.start(name: "simulator client") { [self] in serve(client) }
        }
    }

    private func serve(_ client: Int32) {
        defer {
            clients.withLock { _ = $0.remove(client) }
            Glibc.close(client)
        }
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(client, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return }
            // Only the bytes just read can hold a newline: searching all of `pending` after each read was
            // quadratic in a long line (seconds for a mebibyte).
            var searched = pending.count
            pending += buffer.prefix(count)
            while let newline = pending[searched...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                searched = 0
                guard !line.allSatisfy(\.isWhitespace) else { continue }
                guard send(control.respond(to: line), to: client) else { return }
            }
            // A line with no end in sight: its size is the answer, and the connection ends
            // (what follows cannot be told apart from the rest of that line).
            if pending.count > SimulatorControl.maximumRequestBytes {
                _ = send(control.respond(to: String(decoding: pending, as: UTF8.self)), to: client)
                return
            }
        }
    }

    /// Writes `answer` and a newline; false when the client is gone.
    private func send(_ answer: String, to client: Int32) -> Bool {
        let bytes = Array((answer + "\n").utf8)
        var sent = 0
        while sent < bytes.count {
            let written = bytes[sent...].withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
            guard written > 0 else { return false }
            sent += written
        }
        return true
    }
}

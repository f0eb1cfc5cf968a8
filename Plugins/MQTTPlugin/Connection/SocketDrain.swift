import Glibc

/// A second descriptor of a connection's socket, kept across libmosquitto's
/// own close after DISCONNECT, so the connection ends without a reset.
///
/// Closing a TCP socket while bytes it received are still unread (a message
/// the broker sent behind the group being held) sends RST instead of FIN, and
/// the broker then drops the connection before it has read what was written
/// last: the group's PUBACKs and the DISCONNECT. Holding this copy, the socket
/// stays open when libmosquitto closes its descriptor; `drainAndClose` reads
/// and discards until the broker closes its side (it does on DISCONNECT), and
/// only then closes. What it discards was not acknowledged: the broker keeps it.
struct SocketDrain {
    private let descriptor: Int32

    /// A copy of `socket`, or nil when there is no socket or no descriptor left.
    init?(duplicating socket: Int32) {
        guard socket >= 0 else { return nil }
        let copy = fcntl(socket, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else { return nil }
        descriptor = copy
    }

    /// Reads and discards until the peer has closed its side, or until
    /// `deadline` (then a reset may still go out); then closes the copy.
    func drainAndClose(until deadline: ContinuousClock.Instant) {
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now < deadline {
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 100) > 0 else { continue }
            let count = read(descriptor, &buffer, buffer.count)
            if count == 0 { return }  // the broker closed: nothing unread is left
            if count < 0, errno != EAGAIN, errno != EINTR { return }
        }
    }
}

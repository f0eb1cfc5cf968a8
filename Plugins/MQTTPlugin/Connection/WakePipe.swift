import Glibc

/// A self-pipe that wakes the connection thread out of `poll` when another
/// thread has work for it (a message appended, a stop requested, the consumer
/// took messages). Closed when the last holder lets go of it.
final class WakePipe: Sendable {
    private let readEnd: Int32
    private let writeEnd: Int32

    init() {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends {
                _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            }
        } else {
            // Without a pipe the thread still runs: poll times out every second instead.
            ends = [-1, -1]
        }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    func signal() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Waits until `socket` (when ≥ 0) is ready for `events`, the pipe is
    /// signalled, or the timeout passes; then empties the pipe.
    func wait(alongside socket: Int32, events: Int16, timeoutMilliseconds: Int32) {
        var fds = [pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)]
        if socket >= 0 { fds.append(pollfd(fd: socket, events: events, revents: 0)) }
        _ = poll(&fds, nfds_t(fds.count), timeoutMilliseconds)
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(readEnd, &buffer, buffer.count) > 0 {}
    }

    deinit {
        _ = close(readEnd)
        _ = close(writeEnd)
    }
}

@preconcurrency import Glibc
import Synchronization

/// Whole lines to stdout, one `write(2)` each under a lock, so lines from
/// concurrent actions never interleave and nothing waits in a buffer at a crash.
enum StandardOutput {
    private static let lock = Mutex(())

    static func writeLine(_ line: String) {
        var bytes = Array((line + "\n").utf8)
        lock.withLock { _ in
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeMutableBytes { Glibc.write(STDOUT_FILENO, $0.baseAddress! + offset, $0.count - offset) }
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }
}

@preconcurrency import Glibc
import Synchronization

/// Whole lines to stdout, one `write(2)` each under a lock, so lines from
/// concurrent actions never interleave and nothing waits in a buffer at a crash.
enum StandardOutput {
    private static let lock = Mutex(())

    /// Writes `line` and a newline; nil on success, else why not (`errno`'s text).
    static func writeLine(_ line: String) -> String? {
        var bytes = Array((line + "\n").utf8)
        return lock.withLock { _ -> String? in
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeMutableBytes { Glibc.write(STDOUT_FILENO, $0.baseAddress! + offset, $0.count - offset) }
                if written < 0 {
                    if errno == EINTR { continue }
                    return String(cString: strerror(errno))
                }
                offset += written
            }
            return nil
        }
    }
}

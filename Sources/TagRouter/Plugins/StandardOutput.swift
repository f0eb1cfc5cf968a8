@preconcurrency import Glibc
import Synchronization

/// Whole lines to stdout, one `write(2)` each under a lock, so lines from
/// concurrent actions never interleave and nothing waits in a buffer at a crash.
enum StandardOutput {
    private static let lock = Mutex(())

    /// Writes `line`, which ends in its newline; nil on success, else why not (`errno`'s text).
    static func write(line: [UInt8]) -> String? {
        line.withUnsafeBytes { bytes in
            lock.withLock { _ -> String? in
                var offset = 0
                while offset < bytes.count {
                    let written = Glibc.write(STDOUT_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
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
}

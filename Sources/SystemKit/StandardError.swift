import Glibc

/// Standard error written with write(2), a whole line per call: lines from different threads do not interleave
/// mid-line, and nothing waits in a buffer when the process ends.
public enum StandardError {
    /// Writes `line` and a newline; a write that fails (stderr closed) is dropped, as there is nowhere left to say so.
    public static func write(line: String) {
        var bytes = Array(line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        var written = 0
        while written < bytes.count {
            let result = bytes[written...].withUnsafeBytes { Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else { return }
            written += result
        }
    }
}

@preconcurrency import Glibc
import Synchronization

/// Where the `log` action writes its lines: the process's stdout (the daemon's
/// default), or any sink a host gives the daemon (a test capturing them in memory).
/// Whole lines are written one at a time, so lines from concurrent actions never interleave.
public struct LineOutput: Sendable {
    /// What the lines go to, for an error message ("stdout").
    public let name: String
    private let write: @Sendable ([UInt8]) -> String?

    /// `write` takes one line (ending in its newline) and returns nil on success, else why it failed.
    /// It may be called from several tasks at once.
    public init(name: String, write: @escaping @Sendable ([UInt8]) -> String?) {
        self.name = name
        self.write = write
    }

    /// Writes `line`, which ends in its newline; nil on success, else why not.
    public func write(line: [UInt8]) -> String? { write(line) }

    /// Standard output: one `write(2)` per line under a lock, so nothing waits in a buffer at a crash.
    public static let standardOutput = LineOutput(name: "stdout") { line in
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

    private static let lock = Mutex(())
}

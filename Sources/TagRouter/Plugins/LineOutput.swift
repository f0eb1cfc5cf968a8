@preconcurrency import Glibc
import Synchronization

/// Where the `log` action writes its lines: the process's stdout (the daemon's
/// default), or any sink a host gives the daemon (a test capturing them in memory).
/// Whole lines are written, so lines from concurrent actions never interleave.
public struct LineOutput: Sendable {
    /// What the lines go to, for an error message ("stdout").
    public let name: String
    private let write: @Sendable (_ line: [UInt8], _ more: Bool) -> String?

    /// `write` takes one line (ending in its newline) and returns nil on success, else why it failed.
    /// It may be called from several tasks at once.
    public init(name: String, write: @escaping @Sendable ([UInt8]) -> String?) {
        self.name = name
        self.write = { line, _ in line.isEmpty ? nil : write(line) }
    }

    /// Writes `line`, which ends in its newline; nil on success, else why not.
    /// `more`: further lines follow at once (deliveries already waiting), so an output may keep
    /// this one to write it with them; a line with `more` false is written, with any kept before it.
    public func write(line: [UInt8], more: Bool = false) -> String? { write(line, more) }

    /// Writes the lines kept for those that were to follow; nil on success, else why not.
    public func flush() -> String? { write([], false) }

    /// Standard output: the lines kept while more follow (up to 64 KiB) and written together,
    /// one `write(2)` under a lock (so writers never interleave nor overtake kept lines);
    /// a line nothing follows is written at once, with those kept before it.
    public static let standardOutput = LineOutput(name: "stdout", write: { line, more in
        kept.withLock { kept -> String? in
            if kept.isEmpty && !more { return writeStandardOutput(line) }
            kept.append(contentsOf: line)
            guard !more || kept.count >= keptLimit else { return nil }
            defer { kept.removeAll(keepingCapacity: true) }
            return writeStandardOutput(kept)
        }
    })

    /// Lines kept for standard output until one that nothing follows; its lock orders the writes.
    private static let kept = Mutex([UInt8]())
    private static let keptLimit = 65_536

    private init(name: String, write: @escaping @Sendable (_ line: [UInt8], _ more: Bool) -> String?) {
        self.name = name
        self.write = write
    }

    /// One or more whole lines to stdout; called with `kept`'s lock held.
    private static func writeStandardOutput(_ lines: [UInt8]) -> String? {
        lines.withUnsafeBytes { bytes in
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

import Glibc

/// Reads a file or an open descriptor to its end with POSIX read(2), at most `limit` bytes: a config parser can
/// refuse /dev/zero or a huge file after one byte too many instead of reading it whole.
public enum FileBytes {
    /// The bytes of the file at `path`, or nil when it cannot be opened or read.
    public static func read(path: String, limit: Int = .max) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        return read(descriptor: descriptor, limit: limit)
    }

    /// The bytes left in `descriptor` (standard input, a pipe, a file), or nil when a read fails.
    public static func read(descriptor: Int32, limit: Int = .max) -> [UInt8]? {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while bytes.count < limit {
            let wanted = min(chunk.count, limit - bytes.count)
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, wanted) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[..<count])
        }
        return bytes
    }
}

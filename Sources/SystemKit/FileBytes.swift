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

    /// Why the file at `path` cannot be read, in words for a message — `there is no such file`,
    /// `permission denied to user tagrouter (uid 64100)`, or the system's reason; nil when it can be.
    public static func whyUnreadable(_ path: String) -> String? {
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFIFO {
            // A named pipe is not opened: even an open closed at once lets a writer waiting in open(2) go on, to
            // write what no reader takes, while the real reader after it waits for a writer that never comes.
            return access(path, R_OK) == 0 ? nil : reason(errno)
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        if descriptor >= 0 {
            // Nothing is read (a device such as /dev/zero would give without end).
            defer { close(descriptor) }
            var info = stat()
            return fstat(descriptor, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR ? String(cString: strerror(EISDIR)) : nil
        }
        return reason(errno)
    }

    /// The words for an `open`/`access` failure with `error`.
    private static func reason(_ error: Int32) -> String {
        switch error {
        case ENOENT: return "there is no such file"
        case EACCES:
            let user = getpwuid(geteuid()).map { String(cString: $0.pointee.pw_name) } ?? "?"
            return "permission denied to user \(user) (uid \(geteuid()))"
        case let reason: return String(cString: strerror(reason))
        }
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

@preconcurrency import Glibc

/// A file holding a secret (a bearer token, a tag password, a key: every `*_file`
/// secret of the config goes through it), read only when it
/// keeps the secret: a regular file (not `/dev/zero`, a pipe), no permission for
/// group or others, at most `limit` bytes, and — when asked — owned by the user
/// reading it. Otherwise the reason, naming the file and how to fix it.
public struct PrivateFile {
    /// A file that holds no usable secret, and why.
    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        public let message: String
        /// The problem is who reads the file (it belongs to another user), not the file itself:
        /// `check-config`, run by another user than the daemon's, cannot tell.
        public let isTheReaders: Bool
        public var description: String { message }

        public init(message: String, isTheReaders: Bool = false) {
            self.message = message
            self.isTheReaders = isTheReaders
        }
    }

    public let path: String
    /// What the file holds, in messages: `token`, `password`.
    public let what: String

    public init(path: String, what: String) {
        self.path = path
        self.what = what
    }

    /// The file's bytes; nil when it cannot be opened at all or is a directory (the caller says
    /// so in its own words); a `Problem` when it is there but does not keep a secret.
    public func read(limit: Int, requireOwner: Bool = false) throws(Problem) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        let kind = info.st_mode & S_IFMT
        guard kind == S_IFREG else {
            if kind == S_IFDIR { return nil }
            throw Problem(message: "'\(path)' is not a regular file but \(Self.describe(kind)); put the \(what) alone in a file of its own")
        }
        if info.st_mode & 0o077 != 0 {
            throw Problem(message: "'\(path)' can be read by other users (mode \(String(info.st_mode & 0o777, radix: 8))); "
                + "`chmod 600 \(path)`, owned by the user tagrouter runs as")
        }
        if requireOwner, info.st_uid != geteuid() {
            throw Problem(message: "'\(path)' belongs to user id \(info.st_uid), not to the user tagrouter runs as (\(geteuid())); "
                + "`chown` it to that user, mode 600", isTheReaders: true)
        }
        if info.st_size > limit {
            throw Problem(message: "'\(path)' is \(info.st_size) bytes long, more than a \(what) (at most \(limit)); put the \(what) alone in it")
        }
        return FileBytes.read(descriptor: fd, limit: limit)
    }

    private static func describe(_ kind: mode_t) -> String {
        switch kind {
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFIFO: return "a named pipe"
        case S_IFSOCK: return "a socket"
        default: return "not a file"
        }
    }
}

@preconcurrency import Glibc

/// The folder the daemon keeps state in (`state_dir`) and the files in it: made
/// private to the daemon's user when it creates them, refused when another user
/// could plant files or symlinks there, and its files opened without following a
/// symlink or blocking on a named pipe, and used only when they are regular files.
/// The spool, the SUN counters and the MQTT inputs' seen event ids all go through it.
public enum StateFolder {
    /// A state folder or file that cannot be trusted or used, and why.
    public struct Problem: Error, Sendable, CustomStringConvertible {
        public let path: String
        public let reason: String

        public init(path: String, reason: String) {
            self.path = path
            self.reason = reason
        }

        /// The path and `errno`'s text.
        init(path: String, failed operation: String) {
            self.init(path: path, reason: "\(operation) failed (\(String(cString: strerror(errno))))")
        }

        public var description: String { "\(path): \(reason)" }
    }

    /// Creates `path` and its missing parents, each private to the daemon's user (mode 700).
    public static func create(_ path: String) throws(Problem) {
        var made = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            made += "/" + component
            guard mkdir(made, 0o700) == 0 || errno == EEXIST else { throw Problem(path: made, reason: String(cString: strerror(errno))) }
        }
    }

    /// Nil when the folder at `path` is one only `owner` can write; else why not (another user
    /// could plant files and symlinks there). `following`: `path` may be a symlink to the folder
    /// (`state_dir` itself); else it must be the folder.
    public static func problem(_ path: String, owner: uid_t = geteuid(), following: Bool) -> String? {
        var status = stat()
        guard (following ? stat(path, &status) : lstat(path, &status)) == 0 else {
            return "cannot be checked (\(String(cString: strerror(errno))))"
        }
        let mode = String(status.st_mode & 0o7777, radix: 8).leftPadded(toLength: 4, with: "0")
        if status.st_mode & S_IFMT != S_IFDIR {
            return "not a folder (a symlink or another file); make it a folder only the daemon's user can write"
        }
        if status.st_uid != owner {
            return "owned by uid \(status.st_uid), not by the daemon's user (uid \(owner)): that user could plant files and symlinks there; "
                + "chown it or set another state_dir"
        }
        if status.st_mode & 0o022 != 0 {
            return "writable by group or others (mode \(mode)): they could plant files and symlinks there; chmod go-w it or set another state_dir"
        }
        return nil
    }

    /// Creates `path` when it is missing, then refuses it unless only the daemon's user can write it.
    public static func prepare(_ path: String) throws(Problem) {
        try create(path)
        if let reason = problem(path, following: true) { throw Problem(path: path, reason: reason) }
    }

    /// Opens the state file at `path` with `flags` (`O_NOFOLLOW`, `O_NONBLOCK` and `O_CLOEXEC`
    /// added): -1 when there is none (and `O_CREAT` is not in `flags`); a `Problem` when it is
    /// a symlink, a named pipe, a device or a folder — anything but a regular file.
    public static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o600) throws(Problem) -> Int32 {
        let descriptor = Glibc.open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, mode)
        guard descriptor >= 0 else {
            if errno == ENOENT { return -1 }
            if errno == ELOOP { throw Problem(path: path, reason: "is a symlink; state files are never followed (remove it)") }
            throw Problem(path: path, failed: "open")
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw Problem(path: path, reason: "is not a regular file (a named pipe, a device or a folder); remove it")
        }
        return descriptor
    }

    /// The bytes of the state file at `path`, nil when there is none; a `Problem` when it
    /// is not a regular file, cannot be read, or holds more than `limit` bytes.
    public static func read(_ path: String, limit: Int) throws(Problem) -> [UInt8]? {
        let descriptor = try open(path, O_RDONLY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        guard let bytes = FileBytes.read(descriptor: descriptor, limit: limit + 1) else { throw Problem(path: path, failed: "read") }
        guard bytes.count <= limit else { throw Problem(path: path, reason: "is larger than \(limit) bytes") }
        return bytes
    }
}

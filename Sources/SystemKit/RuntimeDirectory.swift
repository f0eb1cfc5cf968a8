import Glibc

/// The folder a daemon keeps its control socket and device locks in, and the
/// checks that keep another user of the machine from planting either there
/// (docs/security.md "The machine").
public enum RuntimeDirectory {
    /// The system service's folder (systemd's `RuntimeDirectory=tagrouter`).
    public static let system = "/run/tagrouter"

    /// This process's folder: `$RUNTIME_DIRECTORY` (its first entry) under systemd,
    /// else `$XDG_RUNTIME_DIR/tagrouter`, else `/tmp/tagrouter-<uid>`.
    public static func standard(environment: [String: String], uid: uid_t = geteuid()) -> String {
        if let runtime = environment["RUNTIME_DIRECTORY"]?.split(separator: ":").first, !runtime.isEmpty {
            return String(runtime)
        }
        if let xdg = environment["XDG_RUNTIME_DIR"], !xdg.isEmpty {
            return xdg + "/tagrouter"
        }
        return "/tmp/tagrouter-\(uid)"
    }

    /// Makes `folder` (mode 0750: the daemon's group may reach its socket and see
    /// its locks) when missing, then checks it as `trustedOwner` does, except that
    /// the daemon only uses a folder of its own user or root.
    public static func prepare(_ folder: String) throws(Problem) {
        if mkdir(folder, 0o750) != 0, errno != EEXIST {
            throw Problem("cannot make \(folder): \(String(cString: strerror(errno)))")
        }
        let owner = try trustedOwner(of: folder)
        guard owner == geteuid() || owner == 0 else {
            throw Problem("\(folder) belongs to uid \(owner), not to this user (uid \(geteuid()))")
        }
    }

    /// The owner of `folder` when nobody but that owner (and root) can have put
    /// anything in it: a real folder (not a symbolic link) that neither its group nor
    /// others may write, owned by this user or root — or by another user when the
    /// folder above it is one only root (or this user) may write, as systemd makes
    /// `/run/tagrouter` for the service's user. Else says why not.
    public static func trustedOwner(of folder: String) throws(Problem) -> uid_t {
        var status = stat()
        guard lstat(folder, &status) == 0 else { throw Problem("\(folder): \(String(cString: strerror(errno)))") }
        guard status.st_mode & S_IFMT == S_IFDIR else {
            throw Problem("\(folder) is \(status.st_mode & S_IFMT == S_IFLNK ? "a symbolic link" : "not a folder")")
        }
        guard status.st_mode & 0o022 == 0 else {
            throw Problem("\(folder) may be written by others (mode \(String(status.st_mode & 0o7777, radix: 8)))")
        }
        let owner = status.st_uid
        if owner == geteuid() || owner == 0 { return owner }
        let parent = folder.lastIndex(of: "/").map { $0 == folder.startIndex ? "/" : String(folder[..<$0]) } ?? "."
        var above = stat()
        guard stat(parent, &above) == 0, above.st_uid == 0 || above.st_uid == geteuid(), above.st_mode & 0o022 == 0 else {
            let where_ = above.st_mode & 0o002 != 0 ? "where anyone may make folders" : "which is not root's alone"
            throw Problem("\(folder) belongs to uid \(owner), in \(parent) \(where_): another user may have made it")
        }
        return owner
    }

    /// Why a runtime folder cannot be used; the message names it.
    public struct Problem: Error, Sendable, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }
}

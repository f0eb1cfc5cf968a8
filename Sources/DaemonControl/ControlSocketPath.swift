@preconcurrency import Glibc

/// Where the control socket is when `--control` does not say:
/// `$RUNTIME_DIRECTORY/control.sock` under systemd, else
/// `$XDG_RUNTIME_DIR/tagrouter/control.sock`, else `/tmp/tagrouter-$UID/control.sock`.
public enum ControlSocketPath {
    public static let fileName = "control.sock"

    /// The default path for this process.
    public static func standard(environment: [String: String], uid: uid_t = geteuid()) -> String {
        if let runtime = environment["RUNTIME_DIRECTORY"]?.split(separator: ":").first, !runtime.isEmpty {
            return "\(runtime)/\(fileName)"
        }
        if let xdg = environment["XDG_RUNTIME_DIR"], !xdg.isEmpty {
            return "\(xdg)/tagrouter/\(fileName)"
        }
        return "/tmp/tagrouter-\(uid)/\(fileName)"
    }

    /// Makes the folder of `path` (mode 0750: the daemon's group may reach the
    /// socket) when missing; refuses one that is not a folder owned by this user,
    /// so nobody else can plant a socket where clients look (`/tmp`).
    static func prepareFolder(of path: String) throws(ControlError) {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return }
        let folder = String(path[..<slash])
        if mkdir(folder, 0o750) == 0 { return }
        guard errno == EEXIST else { throw .socket("cannot create \(folder): \(String(cString: strerror(errno)))") }
        var status = stat()
        guard lstat(folder, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
            throw .socket("\(folder) is not a folder; choose another place with --control PATH")
        }
        guard status.st_uid == geteuid() || status.st_uid == 0 else {
            throw .socket("\(folder) belongs to uid \(status.st_uid), not to this user; choose another place with --control PATH")
        }
    }
}

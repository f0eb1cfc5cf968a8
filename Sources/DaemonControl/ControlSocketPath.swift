@preconcurrency import Glibc
import SystemKit

/// Where the control socket is when `--control` does not say. The daemon listens
/// at `$TAGROUTER_CONTROL`, else in its runtime folder (`RuntimeDirectory.standard`).
/// A client looks at `$TAGROUTER_CONTROL`; else `$RUNTIME_DIRECTORY`'s socket when
/// set; else the first socket present of `$XDG_RUNTIME_DIR/tagrouter/control.sock`,
/// the system service's `/run/tagrouter/control.sock` and `/tmp/tagrouter-$UID/control.sock`
/// (the `/tmp` fallback last: anyone may make folders there).
public enum ControlSocketPath {
    public static let fileName = "control.sock"
    /// The environment variable naming the socket, for set-ups the defaults miss.
    public static let variable = "TAGROUTER_CONTROL"

    /// Where the daemon listens; `explicit` when `$TAGROUTER_CONTROL` chose it.
    public static func daemon(environment: [String: String], uid: uid_t = geteuid()) -> (path: String, explicit: Bool) {
        if let path = environment[variable], !path.isEmpty { return (path, true) }
        return (RuntimeDirectory.standard(environment: environment, uid: uid) + "/" + fileName, false)
    }

    /// Where a client looks, with the places tried (for "no daemon answers");
    /// `explicit` when `$TAGROUTER_CONTROL` chose it. `present` says whether a socket
    /// file is at a path (a test can pretend).
    public static func client(
        environment: [String: String], uid: uid_t = geteuid(), present: (String) -> Bool = exists
    ) -> (path: String, explicit: Bool, tried: [String]) {
        if let path = environment[variable], !path.isEmpty { return (path, true, [path]) }
        if let runtime = environment["RUNTIME_DIRECTORY"]?.split(separator: ":").first, !runtime.isEmpty {
            let path = "\(runtime)/\(fileName)"
            return (path, false, [path])
        }
        var candidates: [String] = []
        if let xdg = environment["XDG_RUNTIME_DIR"], !xdg.isEmpty { candidates.append("\(xdg)/tagrouter/\(fileName)") }
        candidates += ["\(RuntimeDirectory.system)/\(fileName)", "/tmp/tagrouter-\(uid)/\(fileName)"]
        return (candidates.first(where: present) ?? candidates[0], false, candidates)
    }

    /// Whether something is at `path` (not following a symbolic link).
    public static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    /// The folder `path` is in.
    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Makes the folder of `path` when missing (`RuntimeDirectory.prepare`); refuses one
    /// someone else could have put a socket in.
    static func prepareFolder(of path: String) throws(ControlError) {
        do {
            try RuntimeDirectory.prepare(folder(of: path))
        } catch {
            throw .socket("cannot serve control at \(path): \(error); choose another place with --control PATH")
        }
    }
}

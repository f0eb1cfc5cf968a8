@preconcurrency import Glibc

/// Replacing a file's contents all at once — a temporary file beside it, written and
/// synced, renamed over it — so that a reader sees the old text or the new, never half;
/// with the owner, group and mode the file had, so that whoever edits it (root editing the
/// service's file) leaves it readable by whoever read it before.
public enum FileReplacement {
    /// Who owns a file, and its permission bits.
    public struct Ownership: Sendable, Equatable {
        public var owner: uid_t
        public var group: gid_t
        public var mode: mode_t

        public init(owner: uid_t, group: gid_t, mode: mode_t) {
            self.owner = owner
            self.group = group
            self.mode = mode
        }

        /// The file's own (nil when there is no file at `path`).
        public static func of(_ path: String) -> Ownership? {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            return Ownership(owner: info.st_uid, group: info.st_gid, mode: info.st_mode & 0o7777)
        }

        /// For a new file in `folder`: the folder's owner and group, and `mode`.
        public static func new(in folder: String, mode: mode_t) -> Ownership {
            var info = stat()
            guard stat(folder, &info) == 0 else { return Ownership(owner: geteuid(), group: getegid(), mode: mode) }
            return Ownership(owner: info.st_uid, group: info.st_gid, mode: mode)
        }
    }

    /// Writes `bytes` in place of the file at `path`, given `ownership`. Only root may give a
    /// file to another user: anyone else's copy stays their own (the mode still kept).
    public static func write(_ bytes: [UInt8], to path: String, ownership: Ownership) throws(Problem) {
        let temporary = path + ".tagrouter-new"
        unlink(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw Problem("cannot write \(temporary) (to replace \(path)): \(String(cString: strerror(errno)))") }
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            sent += count
        }
        _ = fchown(descriptor, ownership.owner, ownership.group)
        let kept = fchmod(descriptor, ownership.mode) == 0 && sent == bytes.count && fsync(descriptor) == 0
        let reason = String(cString: strerror(errno))
        close(descriptor)
        guard kept, rename(temporary, path) == 0 else {
            let problem = kept ? String(cString: strerror(errno)) : reason
            unlink(temporary)
            throw Problem("cannot replace \(path): \(problem)")
        }
    }

    /// Why a file could not be replaced; the message names it.
    public struct Problem: Error, Sendable, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}

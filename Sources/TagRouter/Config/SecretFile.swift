import Glibc
import SystemKit

/// A `*_file` secret on disk — every one of the config: keys, tokens,
/// passwords — checked by one rule, `PrivateFile`'s: a regular file (not a
/// named pipe or a device), readable by its owner only, at most `limit` bytes.
/// When it cannot be used, why, said so that the user knows what to create or fix.
struct SecretFile {
    /// Why a secret file cannot be used.
    enum Problem: Equatable {
        /// Wrong in the file itself (its kind, its mode, its size): `run` refuses it wherever
        /// it runs, so `check-config` does too.
        case file(String)
        /// Missing, or not readable by this user: `check-config` may run on another machine
        /// or as another user than the daemon's, so there it is a warning.
        case access(String)

        var message: String {
            switch self {
            case .file(let message), .access(let message): return message
            }
        }
    }

    /// The most bytes a secret file holds.
    static let limit = 64 << 10

    let path: String

    /// The file's bytes; nil when it cannot be used (`problem` says why).
    var contents: [UInt8]? { try? PrivateFile(path: path, what: "secret").read(limit: Self.limit) }

    /// Nil when the file keeps a secret this user can read.
    var problem: Problem? {
        do {
            if try PrivateFile(path: path, what: "secret").read(limit: Self.limit) != nil { return nil }
        } catch {
            return error.isTheReaders ? .access(error.message) : .file(error.message)
        }
        var status = stat()
        guard stat(path, &status) == 0 else {
            return .access("cannot read '\(path)': there is no such file; create it with the secret alone in it (mode 600, owned by the user tagrouter runs as)")
        }
        if status.st_mode & S_IFMT == S_IFDIR { return .file("'\(path)' is a directory; name the file that holds the secret") }
        return .access("cannot read '\(path)': permission denied; make it readable by the user tagrouter runs as (mode 600, owned by that user)")
    }
}

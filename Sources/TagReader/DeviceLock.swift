import FoundationEssentials
import Glibc

/// One process's exclusive claim on a reader device, so that two daemons (or a
/// daemon and `tagrouter write`) never talk to one PN532 at once: an
/// `flock(LOCK_EX | LOCK_NB)` on a lock file named after the device under the
/// runtime directory, holding the owner's pid. The kernel releases it when the
/// value goes away or the process dies; lock files are left in place (removing
/// them would race with the next taker).
final class DeviceLock {
    /// Why the lock was not taken.
    enum Failure: Error, Sendable, CustomStringConvertible {
        /// Another process (or another reader of this one) holds it.
        case inUse(device: String, pid: Int32?)
        /// The lock file cannot be made; the message says where and why.
        case unavailable(device: String, reason: String)

        var description: String {
            switch self {
            case .inUse(let device, let pid?): return "device \(device) is in use by pid \(pid)"
            case .inUse(let device, nil): return "device \(device) is in use by another process"
            case .unavailable(let device, let reason): return "cannot lock device \(device): \(reason)"
            }
        }
    }

    private let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close(descriptor) }

    /// Takes the lock of `connstring` (as libnfc names the device), or says who holds it.
    static func acquire(_ connstring: String) throws(Failure) -> DeviceLock {
        let directory: String
        do {
            directory = try runtimeDirectory()
        } catch {
            throw .unavailable(device: connstring, reason: error.reason)
        }
        let path = directory + "/" + fileName(for: connstring)
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw .unavailable(device: connstring, reason: "\(path): \(String(cString: strerror(errno)))") }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            let holder = owner(descriptor)
            close(descriptor)
            if code == EWOULDBLOCK { throw .inUse(device: connstring, pid: holder) }
            throw .unavailable(device: connstring, reason: "\(path): \(String(cString: strerror(code)))")
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = pid.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        return DeviceLock(descriptor: descriptor)
    }

    /// The lock file's name: the device with its path resolved (symlinks, and
    /// a serial port's speed suffix dropped), every byte but `[A-Za-z0-9._-]` as `_`.
    static func fileName(for connstring: String) -> String {
        let safe = key(for: connstring).utf8.map { byte -> Character in
            let allowed = (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte == 0x2E || byte == 0x2D || byte == 0x5F
            return allowed ? Character(Unicode.Scalar(byte)) : "_"
        }
        return String(safe) + ".lock"
    }

    /// `driver:port`, the port resolved when it is a path: `pn532_uart:/dev/serial/by-id/x:115200`
    /// and `pn532_uart:/dev/ttyUSB0` name one device.
    static func key(for connstring: String) -> String {
        let fields = connstring.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard fields.count >= 2, fields[1].hasPrefix("/") else { return connstring }
        let port = String(fields[1])
        return "\(fields[0]):\(realpath(port, nil).map { resolved in defer { free(resolved) }; return String(cString: resolved) } ?? port)"
    }

    /// The directory lock files go in: systemd's `$RUNTIME_DIRECTORY`, else
    /// `$XDG_RUNTIME_DIR/tagrouter`, else `/tmp/tagrouter-<uid>`; made 0700 and
    /// refused unless it is a directory of this user that no one else may write.
    static func runtimeDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) throws(DirectoryProblem) -> String {
        let directory: String
        if let systemd = environment["RUNTIME_DIRECTORY"]?.split(separator: ":").first, !systemd.isEmpty {
            directory = String(systemd)
        } else if let xdg = environment["XDG_RUNTIME_DIR"], !xdg.isEmpty {
            directory = xdg + "/tagrouter"
        } else {
            directory = "/tmp/tagrouter-\(getuid())"
        }
        if mkdir(directory, 0o700) != 0, errno != EEXIST {
            throw DirectoryProblem(reason: "cannot make \(directory): \(String(cString: strerror(errno)))")
        }
        var status = stat()
        guard lstat(directory, &status) == 0 else { throw DirectoryProblem(reason: "\(directory): \(String(cString: strerror(errno)))") }
        guard status.st_mode & S_IFMT == S_IFDIR, status.st_uid == getuid(), status.st_mode & 0o022 == 0 else {
            throw DirectoryProblem(reason: "\(directory) is not a directory of user \(getuid()) that only it may write; remove it or set RUNTIME_DIRECTORY")
        }
        return directory
    }

    /// The runtime directory cannot be used.
    struct DirectoryProblem: Error {
        var reason: String
    }

    /// The pid the holder wrote, if it is there yet.
    private static func owner(_ descriptor: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer.prefix(count), as: UTF8.self).trimmingWhitespace())
    }
}

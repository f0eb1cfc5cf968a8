import FoundationEssentials
import Glibc
import SystemKit

/// One process's exclusive claim on a reader device, so that two daemons (or a
/// daemon and `tagrouter write`) never talk to one PN532 at once: an
/// `flock(LOCK_EX | LOCK_NB)` on a lock file named after the device under the
/// runtime directory, holding the owner's pid (mode 0640: the daemon's group and
/// root can see who holds it). A device is never opened without its lock, and a
/// lock the system service holds in `/run/tagrouter` counts wherever one looks.
/// The kernel releases it when the value goes away or the process dies; lock
/// files are left in place (removing them would race with the next taker).
package final class DeviceLock {
    /// Why the lock was not taken.
    package enum Failure: Error, Sendable, CustomStringConvertible {
        /// Another process (or another reader of this one) holds it.
        case inUse(device: String, pid: Int32?)
        /// The lock file cannot be made; the message says where and why.
        case unavailable(device: String, reason: String)

        package var description: String {
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
    package static func acquire(_ connstring: String) throws(Failure) -> DeviceLock {
        let directory: String
        do {
            directory = try runtimeDirectory()
        } catch {
            throw .unavailable(device: connstring, reason: error.description)
        }
        // The system service keeps its locks in its own folder: a device it holds is in use.
        if directory != RuntimeDirectory.system, let holder = holder(of: connstring, in: RuntimeDirectory.system) {
            throw .inUse(device: connstring, pid: holder)
        }
        let path = directory + "/" + fileName(for: connstring)
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o640)
        guard descriptor >= 0 else { throw .unavailable(device: connstring, reason: "\(path): \(String(cString: strerror(errno)))") }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            let holder = owner(descriptor)
            close(descriptor)
            if code == EWOULDBLOCK { throw .inUse(device: connstring, pid: holder) }
            throw .unavailable(device: connstring, reason: "\(path): \(String(cString: strerror(code)))")
        }
        _ = fchmod(descriptor, 0o640)
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

    /// The folder lock files go in (`RuntimeDirectory.standard`), made 0750 when missing
    /// and refused unless it is a folder of this user (or root) that no one else may write.
    static func runtimeDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) throws(RuntimeDirectory.Problem) -> String {
        let directory = RuntimeDirectory.standard(environment: environment)
        do {
            try RuntimeDirectory.prepare(directory)
        } catch {
            throw RuntimeDirectory.Problem("\(error); remove it or set RUNTIME_DIRECTORY")
        }
        return directory
    }

    /// The pid holding `connstring`'s lock in `directory` (the system service's), if
    /// a process holds it; nil when free, absent or not readable by this user.
    static func holder(of connstring: String, in directory: String) -> Int32?? {
        let descriptor = open(directory + "/" + fileName(for: connstring), O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_SH | LOCK_NB) != 0, errno == EWOULDBLOCK else { return nil }
        return .some(owner(descriptor))
    }

    /// The pid the holder wrote, if it is there yet.
    private static func owner(_ descriptor: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer.prefix(count), as: UTF8.self).trimmingWhitespace())
    }
}

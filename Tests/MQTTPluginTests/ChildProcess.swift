import Foundation
import Glibc
import Synchronization

/// A child process for tests, spawned with posix_spawn so that it starts
/// with an empty signal mask and default handlers. (Foundation's `Process`
/// spawns from a libdispatch thread whose blocked-signal mask the child
/// inherits: mosquitto and mosquitto_sub started that way ignore SIGTERM.)
/// Its stdout, when captured, is read on its own thread and handed over line by line.
final class ChildProcess: Sendable {
    let pid: pid_t
    private let exitStatus = Mutex<Int32?>(nil)

    /// Starts `path` with `arguments`; stderr goes to /dev/null; stdout goes
    /// to `onLine` one line at a time when given, else to /dev/null.
    init(_ path: String, _ arguments: [String], onLine: (@Sendable (String) -> Void)? = nil) throws {
        var ends: [Int32] = [-1, -1]
        if onLine != nil, pipe(&ends) != 0 { throw BrokerError(description: "pipe: \(String(cString: strerror(errno)))") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if onLine != nil {
            posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
            posix_spawn_file_actions_addclose(&actions, ends[0])
            posix_spawn_file_actions_addclose(&actions, ends[1])
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child: pid_t = 0
        let code = posix_spawn(&child, path, &actions, &attributes, argv, environ)
        if onLine != nil { close(ends[1]) }
        guard code == 0 else {
            if onLine != nil { close(ends[0]) }
            throw BrokerError(description: "cannot start \(path): \(String(cString: strerror(code)))")
        }
        pid = child
        if let onLine {
            let readEnd = ends[0]
            Thread.detachNewThread {
                Self.readLines(from: readEnd, into: onLine)
            }
        }
    }

    deinit {
        kill(SIGKILL)
    }

    private static func readLines(from fd: Int32, into onLine: (String) -> Void) {
        defer { close(fd) }
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(fd, &chunk, chunk.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return }
            pending += chunk[..<count]
            while let newline = pending.firstIndex(of: 10) {
                onLine(String(decoding: pending[..<newline], as: UTF8.self))
                pending.removeSubrange(...newline)
            }
        }
    }

    /// True until the child has exited (and been reaped).
    var isRunning: Bool {
        exitStatus.withLock { status in
            if status != nil { return false }
            var raw: Int32 = 0
            if waitpid(pid, &raw, WNOHANG) == pid {
                status = raw
                return false
            }
            return true
        }
    }

    /// Sends `signal` and waits for the child to exit; returns its raw wait status.
    @discardableResult
    func kill(_ signal: Int32 = SIGTERM) -> Int32 {
        exitStatus.withLock { status in
            if let status { return status }
            _ = Glibc.kill(pid, signal)
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) < 0, errno == EINTR {}
            status = raw
            return raw
        }
    }
}

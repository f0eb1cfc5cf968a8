import Glibc
import Synchronization
import SystemKit

/// A mark in a child's environment (`TAGROUTER_CHILD_MARK=<daemon pid>-<n>`)
/// that every process it starts inherits, so the ones that left its process
/// group and session (`setsid`, a daemonizing helper) can still be found and
/// ended with it: `killMarked` sends `SIGKILL` to every process that carries
/// the mark, by reading `/proc/<pid>/environ`. A process that clears its
/// environment escapes it; under systemd the unit's control group catches that
/// one (`KillMode=control-group`, docs/security.md).
struct DescendantMark: Sendable {
    /// The environment variable that carries the mark.
    static let variable = "TAGROUTER_CHILD_MARK"
    /// The most bytes of a process's environment read to look for the mark.
    static let environmentLimit = 1 << 20
    /// Sweeps of `/proc` at most: each kills what it found; a process forking meanwhile needs another.
    static let sweeps = 20

    private static let counter = Atomic<Int>(0)

    /// This mark, unique in the machine while the daemon runs.
    let token: String

    init() {
        token = "\(getpid())-\(Self.counter.add(1, ordering: .relaxed).newValue)"
    }

    /// `command` with the mark in its environment.
    func marking(_ command: ChildCommand) -> ChildCommand {
        var marked = command
        marked.environment[Self.variable] = token
        return marked
    }

    /// Kills every process that carries the mark, sweeping until a sweep finds none; how many it killed.
    @discardableResult
    func killMarked() -> Int {
        let entry = Array("\(Self.variable)=\(token)".utf8)
        var killed = 0
        for _ in 0..<Self.sweeps {
            let marked = Self.processes().filter { Self.carries(entry, pid: $0) }
            if marked.isEmpty { break }
            for pid in marked where kill(pid, SIGKILL) == 0 { killed += 1 }
        }
        return killed
    }

    /// The process ids in `/proc`, this process left out.
    private static func processes() -> [pid_t] {
        guard let directory = opendir("/proc") else { return [] }
        defer { closedir(directory) }
        var pids: [pid_t] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if let pid = pid_t(name), pid != getpid() { pids.append(pid) }
        }
        return pids
    }

    /// Whether the environment of `pid` (readable: this user's processes, or any for root) holds `entry`.
    private static func carries(_ entry: [UInt8], pid: pid_t) -> Bool {
        guard let environment = FileBytes.read(path: "/proc/\(pid)/environ", limit: environmentLimit) else { return false }
        var start = 0
        while start < environment.count {
            let end = environment[start...].firstIndex(of: 0) ?? environment.count
            if environment[start..<end].elementsEqual(entry) { return true }
            start = end + 1
        }
        return false
    }
}

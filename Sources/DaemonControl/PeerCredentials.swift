@preconcurrency import Glibc

/// Who is on the other end of a UNIX socket, as the kernel says (`SO_PEERCRED`),
/// with the supplementary groups of that process.
public struct PeerCredentials: Sendable, Equatable {
    public var pid: pid_t
    public var uid: uid_t
    public var gid: gid_t
    public var groups: [gid_t]

    public init(pid: pid_t, uid: uid_t, gid: gid_t, groups: [gid_t] = []) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
        self.groups = groups
    }

    /// `struct ucred` of <sys/socket.h>, which Swift sees only with _GNU_SOURCE.
    private struct KernelCredentials {
        var pid: pid_t = 0
        var uid: uid_t = 0
        var gid: gid_t = 0
    }

    /// The credentials of the peer connected on `socket` (with its supplementary
    /// groups when `groups`); nil when the kernel does not say.
    public init?(socket: Int32, groups: Bool = true) {
        var credentials = KernelCredentials()
        var length = socklen_t(MemoryLayout<KernelCredentials>.size)
        guard getsockopt(socket, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else { return nil }
        let supplementary = groups ? Self.groups(socket: socket) ?? Self.groups(of: credentials.pid) : []
        self.init(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid, groups: supplementary)
    }

    /// The peer's supplementary groups as the kernel recorded them at connect
    /// (`SO_PEERGROUPS`, Linux 4.13): right even where `/proc` hides other users'
    /// processes (the service's `ProtectProc=invisible`). Nil when the kernel does not say.
    static func groups(socket: Int32) -> [gid_t]? {
        let option: Int32 = 59  // SO_PEERGROUPS, which Glibc does not export to Swift
        var groups = [gid_t](repeating: 0, count: 64)
        while true {
            var length = socklen_t(groups.count * MemoryLayout<gid_t>.size)
            let status = groups.withUnsafeMutableBytes { getsockopt(socket, SOL_SOCKET, option, $0.baseAddress, &length) }
            if status == 0 { return Array(groups.prefix(Int(length) / MemoryLayout<gid_t>.size)) }
            guard errno == ERANGE, Int(length) > groups.count * MemoryLayout<gid_t>.size else { return nil }
            groups = [gid_t](repeating: 0, count: Int(length) / MemoryLayout<gid_t>.size)
        }
    }

    /// The supplementary groups of process `pid` (the `Groups:` line of `/proc/<pid>/status`).
    static func groups(of pid: pid_t) -> [gid_t] {
        guard let file = fopen("/proc/\(pid)/status", "r") else { return [] }
        defer { fclose(file) }
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, file) > 0, let line {
            let text = String(cString: line)
            guard text.hasPrefix("Groups:") else { continue }
            return text.dropFirst("Groups:".count).split(whereSeparator: \.isWhitespace).compactMap { gid_t($0) }
        }
        return []
    }
}

/// Who may use the control socket: root, the daemon's own user, and members
/// of the daemon's group (primary or supplementary). Everyone else is refused.
public struct PeerPolicy: Sendable {
    public var uid: uid_t
    public var gid: gid_t

    /// The policy of this process: its effective user and group.
    public init(uid: uid_t = geteuid(), gid: gid_t = getegid()) {
        self.uid = uid
        self.gid = gid
    }

    /// Nil when `peer` is admitted, else why not (for the peer and the log).
    public func refusal(of peer: PeerCredentials) -> String? {
        if peer.uid == 0 || peer.uid == uid || peer.gid == gid || peer.groups.contains(gid) { return nil }
        return "uid \(peer.uid) (pid \(peer.pid)) is not root, the daemon's user (uid \(uid)) or a member of its group (gid \(gid))"
    }
}

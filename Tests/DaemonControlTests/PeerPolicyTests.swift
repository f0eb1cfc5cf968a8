import DaemonControl
import Glibc
import Testing

@Suite struct PeerPolicyTests {
    /// The daemon runs as uid 1000, gid 2000.
    static let policy = PeerPolicy(uid: 1000, gid: 2000)

    @Test(arguments: [
        (PeerCredentials(pid: 1, uid: 0, gid: 0), true),
        (PeerCredentials(pid: 1, uid: 1000, gid: 1000), true),
        (PeerCredentials(pid: 1, uid: 1001, gid: 2000), true),
        (PeerCredentials(pid: 1, uid: 1001, gid: 1001, groups: [27, 2000]), true),
        (PeerCredentials(pid: 1, uid: 1001, gid: 1001, groups: [27]), false),
        (PeerCredentials(pid: 1, uid: 65534, gid: 65534), false),
    ])
    func admitsRootTheDaemonsUserAndMembersOfItsGroup(peer: PeerCredentials, admitted: Bool) {
        #expect((Self.policy.refusal(of: peer) == nil) == admitted)
    }

    @Test func aRefusalNamesThePeerAndWhoWouldBeAdmitted() {
        let refusal = Self.policy.refusal(of: PeerCredentials(pid: 42, uid: 65534, gid: 65534))
        #expect(refusal == "uid 65534 (pid 42) is not root, the daemon's user (uid 1000) or a member of its group (gid 2000)")
    }

    /// The kernel says who the peer is, supplementary groups included (`SO_PEERGROUPS`).
    @Test func theKernelNamesThePeerAndItsGroups() throws {
        var ends: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        let peer = try #require(PeerCredentials(socket: ends[0]))
        #expect(peer.pid == getpid() && peer.uid == geteuid() && peer.gid == getegid())
        var groups = [gid_t](repeating: 0, count: Int(getgroups(0, nil)))
        let count = getgroups(Int32(groups.count), &groups)
        #expect(Set(peer.groups) == Set(groups.prefix(Int(max(count, 0)))))
        #expect(PeerCredentials(socket: ends[0], groups: false)?.groups == [])
    }

    @Test(arguments: [
        (["RUNTIME_DIRECTORY": "/run/tagrouter", "XDG_RUNTIME_DIR": "/run/user/1000"], "/run/tagrouter/control.sock"),
        (["RUNTIME_DIRECTORY": "/run/tagrouter:/run/other"], "/run/tagrouter/control.sock"),
        (["XDG_RUNTIME_DIR": "/run/user/1000"], "/run/user/1000/tagrouter/control.sock"),
        ([:], "/tmp/tagrouter-1000/control.sock"),
        (["TAGROUTER_CONTROL": "/srv/a.sock", "RUNTIME_DIRECTORY": "/run/tagrouter"], "/srv/a.sock"),
    ])
    func theDaemonListensWhereSystemdOrTheSessionPutsRuntimeFiles(environment: [String: String], path: String) {
        #expect(ControlSocketPath.daemon(environment: environment, uid: 1000).path == path)
    }

    /// A client takes the first socket present: the session's, the system service's, then /tmp's
    /// (anyone may make folders there, so it comes last); `TAGROUTER_CONTROL` overrides all.
    @Test(arguments: [
        (["XDG_RUNTIME_DIR": "/run/user/1000"], ["/run/user/1000/tagrouter/control.sock", "/run/tagrouter/control.sock"], "/run/user/1000/tagrouter/control.sock"),
        (["XDG_RUNTIME_DIR": "/run/user/1000"], ["/run/tagrouter/control.sock", "/tmp/tagrouter-1000/control.sock"], "/run/tagrouter/control.sock"),
        ([:], ["/run/tagrouter/control.sock", "/tmp/tagrouter-1000/control.sock"], "/run/tagrouter/control.sock"),
        ([:], ["/tmp/tagrouter-1000/control.sock"], "/tmp/tagrouter-1000/control.sock"),
        ([:], [], "/run/tagrouter/control.sock"),
        (["XDG_RUNTIME_DIR": "/run/user/1000"], [], "/run/user/1000/tagrouter/control.sock"),
        (["TAGROUTER_CONTROL": "/srv/a.sock"], ["/run/tagrouter/control.sock"], "/srv/a.sock"),
        (["RUNTIME_DIRECTORY": "/run/x"], ["/run/tagrouter/control.sock"], "/run/x/control.sock"),
    ])
    func aClientFindsTheServiceWithoutFlags(environment: [String: String], present: [String], path: String) {
        #expect(ControlSocketPath.client(environment: environment, uid: 1000, present: { present.contains($0) }).path == path)
    }
}

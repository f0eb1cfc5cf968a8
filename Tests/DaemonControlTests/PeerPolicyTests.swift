import DaemonControl
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

    @Test(arguments: [
        (["RUNTIME_DIRECTORY": "/run/tagrouter", "XDG_RUNTIME_DIR": "/run/user/1000"], "/run/tagrouter/control.sock"),
        (["RUNTIME_DIRECTORY": "/run/tagrouter:/run/other"], "/run/tagrouter/control.sock"),
        (["XDG_RUNTIME_DIR": "/run/user/1000"], "/run/user/1000/tagrouter/control.sock"),
        ([:], "/tmp/tagrouter-1000/control.sock"),
    ])
    func theSocketIsWhereSystemdOrTheSessionPutsRuntimeFiles(environment: [String: String], path: String) {
        #expect(ControlSocketPath.standard(environment: environment, uid: 1000) == path)
    }
}

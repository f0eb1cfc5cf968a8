import Foundation
import Harness
import TestSupport
import Testing

/// Debian's pcscd asks polkit whether a client may use it; when polkit says no, pcscd logs
/// `Rejected unauthorized PC/SC client` and closes the connection without reading the client's first
/// message, which libpcsclite reports as `SCARD_W_SECURITY_VIOLATION`. The daemon names that refusal and the
/// package's polkit rule, not an unreachable pcscd. pcscd's polkit check needs polkitd on a system bus, which
/// this machine has not: a socket that does what pcscd does then stands in for it here (the real one, with
/// the rule removed, is `make boot-test`'s check "pcscd's polkit refusal … is named").
@Suite(.timeLimit(.minutes(2)))
struct PCSCRefusalEndToEndTests {
    /// Accepts each client, waits until its first message is there (CMD_VERSION: a header of 8 bytes and a
    /// version of 12, in two writes), and closes the connection unread: pcscd's refusal after polkit's answer.
    static let refusingPCSCD = """
        import socket, sys, time
        server = socket.socket(socket.AF_UNIX)
        server.bind(sys.argv[1])
        server.listen(8)
        print("listening", flush=True)
        while True:
            client, _ = server.accept()
            while 0 < len(client.recv(20, socket.MSG_PEEK)) < 20:
                time.sleep(0.001)
            client.close()
        """

    @Test func pcscdsPolkitRefusalIsNamedWithThePackagesRule() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let socket = setup.directory + "/pcscd.comm"
        let pcscd = try RunningTool("/usr/bin/python3", ["-c", Self.refusingPCSCD, socket], directory: setup.directory)
        defer { pcscd.signal(SIGKILL) }
        try await pcscd.waitForStdout(containing: "listening")
        let config = setup.directory + "/tagrouter.yaml"
        try """
            readers: [{ name: card, device: "pcsc:auto" }]
            routes: [{ name: taps, actions: [log] }]
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try RunningTool(
            BuiltProducts.tagrouter.path, ["run", "--config", config, "--log-format", "json", "--control", setup.directory + "/control.sock"],
            environment: ["PCSCLITE_CSOCK_NAME": socket], directory: setup.directory)
        defer { daemon.signal(SIGTERM) }
        // The headline names the refusal too (it said "pcscd not reachable", which sends one looking for pcscd).
        let line = try await daemon.waitForStderr(containing: "pcscd refused this reader's user through polkit; waiting for it").text
        #expect(line.contains("pcscd refused user ") && line.contains("(uid \(geteuid())) through polkit (action org.debian.pcsc-lite.access_pcsc"), "\(line)")
        #expect(line.contains("/usr/share/polkit-1/rules.d/60-tagrouter-pcscd.rules"), "\(line)")
    }
}

import Foundation
import Harness
import TestSupport
import Testing

/// Another user of the machine cannot stand in for the daemon: a socket in a
/// folder others could have made or written, or served by a stranger, is refused
/// before the client sends a byte; the daemon refuses such a folder for its socket
/// and its device locks. Runs as any user; as root (CI) also with a real second
/// user (`setpriv` to uid 65534).
@Suite(.timeLimit(.minutes(3)))
struct SquattedSocketTests {
    /// A stand-in that says the tagrouter hello, records whatever a client sends
    /// into the file named second, and answers everything "healthy"/"reloaded";
    /// with a second argument it becomes that uid after binding, before listening.
    static let fake = """
        import os, socket, sys
        path, received = sys.argv[1], sys.argv[2]
        s = socket.socket(socket.AF_UNIX)
        s.bind(path)
        os.chmod(path, 0o666)
        if len(sys.argv) > 3:  # bound where only root may; listening (the peer clients see) as another user
            os.setgid(int(sys.argv[3]))
            os.setuid(int(sys.argv[3]))
        s.listen(8)
        print("listening", flush=True)
        while True:
            c, _ = s.accept()
            try:  # a client that checks the peer hangs up at once
                c.sendall(b'{"protocol":1,"server":"tagrouter","version":"fake","pid":1}\\n')
                c.settimeout(2)
                data = c.recv(65536)
                if data:
                    with open(received, "ab") as f:
                        f.write(data)
                    c.sendall(b'{"ok":true,"status":{"healthy":true},"reloaded":{"readers":1,"routes":1}}\\n')
            except OSError:
                pass
            c.close()
        """

    static var isRoot: Bool { getuid() == 0 }

    /// `unshare` arguments that run a command in a mount namespace of its own where the standard places of
    /// the machine's daemons (/run/tagrouter, /tmp/tagrouter-UID) are empty: `run` without `--control` will
    /// not start beside a daemon answering there, and another worktree's or a benchmark's may be.
    static let apartFromTheMachinesDaemons = ["--mount", "--propagation", "private", "--", "/bin/sh", "-c", """
        for folder in /run/tagrouter /tmp/tagrouter-$(id -u); do
            if [ -d "$folder" ]; then mount -t tmpfs -o mode=0700 tmpfs "$folder" || exit 1; fi
        done
        exec "$@"
        """, "sh"]

    /// The fake listening at `path`, recording into `received`: as uid 65534 when `stranger`;
    /// bound as this user but listening as 65534 when `becomesStranger`.
    func startFake(at path: String, received: String, stranger: Bool, becomesStranger: Bool = false) async throws -> RunningTool {
        let python = ["/usr/bin/python3", "-c", Self.fake, path, received] + (becomesStranger ? ["65534"] : [])
        let command = stranger ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] + python : python
        let fake = try RunningTool(command[0], Array(command.dropFirst()), directory: "/")
        try await fake.waitForStdout(containing: "listening")
        return fake
    }

    /// `status`, `reload` and `write` as a user runs them with `environment`: each exits 1 naming `reason`.
    func expectRefused(_ environment: [String: String], _ arguments: [String] = [], reason: String) async throws {
        let clean = ["TAGROUTER_CONTROL": "", "RUNTIME_DIRECTORY": ""].merging(environment) { $1 }
        for command in [["status"], ["reload"], ["write", "--uri", "https://door.example/code-1234", "--timeout", "2"]] {
            let run = try await ToolRun(BuiltProducts.tagrouter.path, command + arguments, environment: clean, directory: "/")
            #expect(run.status == 1, "\(command[0]) exited \(run.status): \(run.stdout) \(run.stderr)")
            #expect(run.stderr.contains(reason), "\(command[0]): \(run.stderr)")
            #expect(!run.stdout.contains("healthy") && !run.stdout.contains("reloaded"), "\(command[0]) believed the fake: \(run.stdout)")
        }
    }

    /// A world-writable scratch folder standing for `/tmp`, as `XDG_RUNTIME_DIR` so no real user's folder is touched.
    func sharedTmp(_ setup: Setup) throws -> String {
        let tmp = setup.directory + "/tmp"
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: false)
        chmod(setup.directory, 0o755)
        chmod(tmp, 0o1777)
        return tmp
    }

    @Test func aFolderOthersMayWriteIsRefusedBeforeAnythingIsSent() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let tmp = try sharedTmp(setup)
        let folder = tmp + "/tagrouter"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        chmod(folder, 0o777)
        let fake = try await startFake(at: folder + "/control.sock", received: folder + "/received", stranger: false)
        try await expectRefused(["XDG_RUNTIME_DIR": tmp], reason: "not talking to \(folder)/control.sock: \(folder) may be written by others (mode 777)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/received"), "a client sent something to the fake")
        fake.signal(SIGTERM)

        // The daemon does not serve in it, and opens no reader without its lock there.
        let simulator = try await setup.simulator(pacing: false)
        let config = setup.directory + "/tagrouter.yaml"
        try """
            state_dir: \(setup.directory)/state
            readers: [{ name: door, device: "pn532_uart:\(setup.link)" }]
            routes: [{ name: up, match: { event: reader.connected }, actions: [{ log: "connected {{reader}}" }] }]
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let run = [BuiltProducts.tagrouter.path, "run", "--config", config, "--log-format", "json"]
        let daemon = try RunningTool(
            Self.isRoot ? "/usr/bin/unshare" : run[0], Self.isRoot ? Self.apartFromTheMachinesDaemons + run : Array(run.dropFirst()),
            environment: ["XDG_RUNTIME_DIR": tmp, "RUNTIME_DIRECTORY": "", "TAGROUTER_CONTROL": "", "LIBNFC_AUTO_SCAN": "false", "LIBNFC_INTRUSIVE_SCAN": "false"],
            directory: setup.directory)
        try await daemon.waitForStderr(containing: "running without a control socket")
        let refusal = try await daemon.waitForStderr(containing: "cannot lock device pn532_uart:\(setup.link)")
        #expect(refusal.text.contains("\(folder) may be written by others"), "\(refusal.text)")
        #expect(!daemon.stderr.contains { $0.text.contains("without its lock") || $0.text.contains("connected door") })
        // Once the folder is the user's alone, the reader waiting for its lock opens.
        chmod(folder, 0o700)
        try await daemon.waitForStdout(containing: "connected door", timeout: .seconds(60))
        daemon.signal(SIGTERM)
        _ = try await daemon.termination()
        simulator.signal(SIGTERM)
    }

    @Test func aFolderAnotherUserMadeInTmpIsRefused() async throws {
        guard Self.isRoot else { return }  // a second user needs root; the folder checks run above as any user
        let setup = try Setup()
        defer { setup.remove() }
        let tmp = try sharedTmp(setup)
        let folder = tmp + "/tagrouter"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        chown(folder, 65534, 65534)
        chmod(folder, 0o755)
        let fake = try await startFake(at: folder + "/control.sock", received: folder + "/received", stranger: true)
        try await expectRefused(["XDG_RUNTIME_DIR": tmp], reason: "\(folder) belongs to uid 65534, in \(tmp) where anyone may make folders")
        #expect(!FileManager.default.fileExists(atPath: folder + "/received"), "a client sent something to the fake")
        fake.signal(SIGTERM)
    }

    /// A socket in a safe folder served by a stranger (bound by root, which then became the stranger) is refused on the kernel's word.
    @Test func aPeerThatIsNeitherRootNorYouNorTheFoldersOwnerIsRefused() async throws {
        guard Self.isRoot else { return }  // a second user needs root; the folder checks run above as any user
        let setup = try Setup()
        defer { setup.remove() }
        chmod(setup.directory, 0o755)
        let safe = setup.directory + "/safe"
        try FileManager.default.createDirectory(atPath: safe, withIntermediateDirectories: false)
        chmod(safe, 0o755)
        let received = try sharedTmp(setup) + "/received"
        let fake = try await startFake(at: safe + "/control.sock", received: received, stranger: false, becomesStranger: true)
        try await expectRefused([:], ["--control", safe + "/control.sock"], reason: "not talking to \(safe)/control.sock: it is served by uid 65534")
        #expect(!FileManager.default.fileExists(atPath: received), "a client sent something to the fake")
        fake.signal(SIGTERM)
    }
}

import Foundation
import Harness
import TestSupport
import Testing

/// The CLI finds the system service as it is packaged (config/systemd/tagrouter.service:
/// its own user, `RuntimeDirectory=tagrouter`, `UMask=0027`) without `--control`, from
/// root and from a member of its group; a stranger is refused. The test gives the
/// processes a private `/run` (a mount namespace, `unshare`/`nsenter`) so the
/// machine's own `/run/tagrouter` is never touched, and runs them as other users
/// with `setpriv` — so it needs root, which CI has.
@Suite(.timeLimit(.minutes(3)))
struct PackagedServiceTests {
    static let service: uid_t = 64_100
    static let member: uid_t = 64_101
    static let stranger: uid_t = 64_102
    static let blank = #"{"op":"place","type":"ntag215","uid":"04a224b2c35e80","records":[{"text":"old"}]}"#

    /// `command` inside the private `/run` of `namespace`, as `uid` (with `groups`) when given.
    func inside(_ namespace: RunningTool, as uid: uid_t? = nil, groups: [uid_t] = [], _ command: [String]) -> [String] {
        var wrapped = ["/usr/bin/nsenter", "-t", "\(namespace.pid)", "-m", "--"]
        if let uid {
            wrapped += ["/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(uid)"]
            wrapped += groups.isEmpty ? ["--clear-groups"] : ["--groups=" + groups.map(String.init).joined(separator: ",")]
        }
        return wrapped + command
    }

    /// No hint of where the daemon is: what a login shell has.
    static let shell = ["TAGROUTER_CONTROL": "", "RUNTIME_DIRECTORY": "", "XDG_RUNTIME_DIR": ""]

    func run(_ command: [String], environment: [String: String] = shell) async throws -> ToolRun {
        try await ToolRun(command[0], Array(command.dropFirst()), environment: environment, directory: "/")
    }

    func start(_ command: [String], environment: [String: String] = shell, directory: String = "/") throws -> RunningTool {
        try RunningTool(command[0], Array(command.dropFirst()), environment: environment, directory: directory)
    }

    /// A request to the simulator at `control` (`tagrouter simulate --request`), which must succeed.
    func request(_ json: String, control: String) async throws {
        let run = try await ToolRun(BuiltProducts.tagrouter.path, ["simulate", "--control", control, "--request", json])
        guard run.status == 0 else { throw TestFailure(description: "simulate --request \(json): \(run.stderr)") }
    }

    @Test func rootAndTheServicesGroupFindTheServiceWithoutFlags() async throws {
        guard getuid() == 0 else { return }  // other users and a private /run need root
        let setup = try Setup()
        defer { setup.remove() }
        let tagrouter = try BuiltProducts.tagrouterForOtherUsers(in: setup.directory)
        let home = setup.directory + "/service"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: false)
        chown(home, Self.service, Self.service)
        let link = home + "/pn532"
        let simulatorControl = home + "/pn532.sock"

        // systemd's part: a /run of its own with /run/tagrouter made for the service's user (mode 0755).
        let namespace = try start([
            "/usr/bin/unshare", "-m", "--propagation", "private", "sh", "-c",
            "mount -t tmpfs -o mode=755 tmpfs /run && mkdir /run/tagrouter && chown \(Self.service):\(Self.service) /run/tagrouter && echo ready && exec sleep 600",
        ])
        try await namespace.waitForStdout(containing: "ready")
        defer { namespace.signal(SIGKILL) }

        let simulator = try start(
            ["/usr/bin/setpriv", "--reuid=\(Self.service)", "--regid=\(Self.service)", "--clear-groups",
             tagrouter, "simulate", "--no-pacing", "--link", link, "--control", simulatorControl],
            directory: home)
        try await simulator.waitForStdout(containing: "control: \(simulatorControl)")
        defer { simulator.signal(SIGTERM) }
        let device = "pn532_uart:\(link)"
        let config = home + "/tagrouter.yaml"
        try """
            state_dir: \(home)/state
            readers: [{ name: front-door, device: "\(device)", cooldown: 0s, exit_delay: 200ms }]
            routes:
              - { name: taps, match: { event: tag.arrived }, actions: [{ log: "tap {{tag.uid}}" }] }
              - { name: up, match: { event: reader.connected }, actions: [{ log: "connected {{reader}}" }] }
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try start(
            inside(namespace, as: Self.service, ["/bin/sh", "-c", "umask 0027 && exec \"$0\" \"$@\"", tagrouter, "run", "--config", config, "--log-format", "json"]),
            environment: ["RUNTIME_DIRECTORY": "/run/tagrouter", "XDG_RUNTIME_DIR": "", "TAGROUTER_CONTROL": "", "LIBNFC_AUTO_SCAN": "false", "LIBNFC_INTRUSIVE_SCAN": "false"],
            directory: home)
        try await daemon.waitForStderr(containing: "control socket ready")
        try await daemon.waitForStdout(containing: "connected front-door")
        defer { daemon.signal(SIGTERM) }
        let which = "pid \(daemon.pid), config \(config)"

        // status, from root and from a member of the service's group; a stranger is refused by the daemon.
        let rootStatus = try await run(inside(namespace, [tagrouter, "status"]))
        #expect(rootStatus.status == 0, "\(rootStatus.stderr)")
        #expect(rootStatus.stdout.contains("pid \(daemon.pid)") && rootStatus.stdout.contains("config: \(config)"), "\(rootStatus.stdout)")
        #expect(rootStatus.stdout.contains("control: /run/tagrouter/control.sock"), "\(rootStatus.stdout)")
        let memberStatus = try await run(inside(namespace, as: Self.member, groups: [Self.service], [tagrouter, "status"]))
        #expect(memberStatus.status == 0, "\(memberStatus.stderr)")
        let strangerStatus = try await run(inside(namespace, as: Self.stranger, [tagrouter, "status"]))
        #expect(strangerStatus.status == 1)
        #expect(strangerStatus.stderr.contains("/run/tagrouter/control.sock"), "\(strangerStatus.stderr)")

        // events, from the member and from root: each says which daemon it follows, and sees the taps.
        let events = try start(inside(namespace, as: Self.member, groups: [Self.service], [tagrouter, "events"]))
        let rootEvents = try start(inside(namespace, [tagrouter, "events"]))
        for watcher in [events, rootEvents] {
            try await watcher.waitForStderr(containing: "following the events of tagrouter (\(which)) at /run/tagrouter/control.sock")
        }

        // write from the member (no --device: the daemon's only reader) goes through the daemon.
        let memberWrite = try start(inside(namespace, as: Self.member, groups: [Self.service], [tagrouter, "write", "--text", "member", "--timeout", "20"]))
        try await daemon.waitForStderr(containing: "write requested; waiting for a tag")
        try await request(Self.blank, control: simulatorControl)
        #expect(try await memberWrite.termination().status == .exited(0), "\(memberWrite.stderr.map(\.text))")
        try await request(#"{"op":"remove"}"#, control: simulatorControl)

        // write from root naming the device the service holds: through the service, never opening it underneath.
        let before = daemon.stderr.count
        let rootWrite = try start(inside(namespace, [tagrouter, "write", "--device", device, "--text", "root", "--timeout", "20"]))
        try await daemon.waitForStderr(containing: "write requested; waiting for a tag", after: before)
        try await request(Self.blank, control: simulatorControl)
        #expect(try await rootWrite.termination().status == .exited(0), "\(rootWrite.stderr.map(\.text))")
        #expect(!daemon.stderr.contains { $0.text.contains("reader lost") }, "\(daemon.stderr.map(\.text))")
        try await daemon.waitForStderr(containing: "tag written; not routed")

        // A tap (not a write) reaches both watchers.
        try await request(#"{"op":"remove"}"#, control: simulatorControl)
        try await request(#"{"op":"place","type":"ntag213","uid":"04000000000001","records":[{"text":"hi","lang":"en"}]}"#, control: simulatorControl)
        for watcher in [events, rootEvents] { try await watcher.waitForStdout(containing: "front-door tag.arrived 04000000000001") }
    }
}

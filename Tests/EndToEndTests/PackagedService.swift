import Foundation
import Harness
import TestSupport

/// The system service as config/systemd/tagrouter.service runs it, imitated for a test:
/// a private `/run` (a mount namespace, `unshare`) with `/run/tagrouter` made for the
/// service's user, the daemon as that user with `UMask=0027` and `RUNTIME_DIRECTORY`,
/// the simulator as its reader. Commands run inside that `/run` (`nsenter`), as root
/// or as another user (`setpriv`). Needs root; `stop()` ends it all.
final class PackagedService {
    static let service: uid_t = 64_100
    static let member: uid_t = 64_101
    static let stranger: uid_t = 64_102

    /// No hint of where the daemon is: what a login shell has.
    static let shell = ["TAGROUTER_CONTROL": "", "RUNTIME_DIRECTORY": "", "XDG_RUNTIME_DIR": ""]

    let setup: Setup
    /// The copy of the binary other users may run.
    let tagrouter: String
    /// The service's folder (its home, state and config).
    let home: String
    let config: String
    let device: String
    let simulatorControl: String
    private let namespace: RunningTool
    private let simulator: RunningTool
    let daemon: RunningTool

    /// The service on `config` (YAML; `HOME` in it stands for the service's folder), once its reader is connected;
    /// `prepare` runs on the folder before the daemon starts (files the config names).
    init(config text: String, prepare: (String) throws -> Void = { _ in }) async throws {
        setup = try Setup()
        tagrouter = try BuiltProducts.tagrouterForOtherUsers(in: setup.directory)
        home = setup.directory + "/service"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: false)
        chown(home, Self.service, Self.service)
        let link = home + "/pn532"
        simulatorControl = home + "/pn532.sock"
        device = "pn532_uart:\(link)"
        config = home + "/tagrouter.yaml"

        // systemd's part: a /run of its own with /run/tagrouter made for the service's user (mode 0755).
        namespace = try RunningTool(
            "/usr/bin/unshare", ["-m", "--propagation", "private", "sh", "-c",
            "mount -t tmpfs -o mode=755 tmpfs /run && mkdir /run/tagrouter && chown \(Self.service):\(Self.service) /run/tagrouter && echo ready && exec sleep 600"],
            environment: Self.shell, directory: "/")
        try await namespace.waitForStdout(containing: "ready")
        simulator = try RunningTool(
            "/usr/bin/setpriv", ["--reuid=\(Self.service)", "--regid=\(Self.service)", "--clear-groups",
            tagrouter, "simulate", "--no-pacing", "--link", link, "--control", simulatorControl],
            environment: Self.shell, directory: home)
        try await simulator.waitForStdout(containing: "control: \(simulatorControl)")
        try text.replacingOccurrences(of: "HOME", with: home).replacingOccurrences(of: "DEVICE", with: device)
            .write(toFile: config, atomically: true, encoding: .utf8)
        try prepare(home)
        let command = Self.inside(namespace, as: Self.service, ["/bin/sh", "-c", "umask 0027 && exec \"$0\" \"$@\"", tagrouter, "run", "--config", config, "--log-format", "json"])
        daemon = try RunningTool(
            command[0], Array(command.dropFirst()),
            environment: ["RUNTIME_DIRECTORY": "/run/tagrouter", "XDG_RUNTIME_DIR": "", "TAGROUTER_CONTROL": "", "LIBNFC_AUTO_SCAN": "false", "LIBNFC_INTRUSIVE_SCAN": "false"],
            directory: home)
        try await daemon.waitForStderr(containing: "control socket ready")
    }

    /// `command` inside the service's `/run`, as `uid` (with `groups`) when given.
    func inside(as uid: uid_t? = nil, groups: [uid_t] = [], _ command: [String]) -> [String] {
        Self.inside(namespace, as: uid, groups: groups, command)
    }

    private static func inside(_ namespace: RunningTool, as uid: uid_t?, groups: [uid_t] = [], _ command: [String]) -> [String] {
        var wrapped = ["/usr/bin/nsenter", "-t", "\(namespace.pid)", "-m", "--"]
        if let uid {
            wrapped += ["/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(uid)"]
            wrapped += groups.isEmpty ? ["--clear-groups"] : ["--groups=" + groups.map(String.init).joined(separator: ",")]
        }
        return wrapped + command
    }

    /// `tagrouter ARGUMENTS` inside, as a login shell of `uid` (root when nil) runs it, to its end.
    func run(as uid: uid_t? = nil, groups: [uid_t] = [], _ arguments: [String], stdin: String = "") async throws -> ToolRun {
        let command = inside(as: uid, groups: groups, [tagrouter] + arguments)
        return try await ToolRun(command[0], Array(command.dropFirst()), environment: Self.shell, directory: "/", stdin: Array(stdin.utf8))
    }

    /// `tagrouter ARGUMENTS` inside, started.
    func start(as uid: uid_t? = nil, groups: [uid_t] = [], _ arguments: [String]) throws -> RunningTool {
        let command = inside(as: uid, groups: groups, [tagrouter] + arguments)
        return try RunningTool(command[0], Array(command.dropFirst()), environment: Self.shell, directory: "/")
    }

    /// A request to the simulator (`tagrouter simulate --request`), which must succeed.
    func request(_ json: String) async throws {
        let run = try await ToolRun(BuiltProducts.tagrouter.path, ["simulate", "--control", simulatorControl, "--request", json])
        guard run.status == 0 else { throw TestFailure(description: "simulate --request \(json): \(run.stderr)") }
    }

    /// Ends the daemon, the simulator and the namespace, and removes the folder.
    func stop() {
        daemon.signal(SIGTERM)
        simulator.signal(SIGTERM)
        namespace.signal(SIGKILL)
        setup.remove()
    }
}

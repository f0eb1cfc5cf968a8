import Foundation
import Harness
import TestSupport
import Testing

/// `tagrouter doctor` as a user runs it, on a made-up machine (`--root`): the checks
/// that need the tool itself — the config, the daemon, the MQTT broker — and the exit status.
@Suite struct DoctorCommandTests {
    /// A machine with a service user in plugdev, an ACR122U it can open, and `processes` (pid → argv).
    static func machine(_ setup: Setup, processes: [String: [String]]) throws -> String {
        let root = setup.directory + "/machine"
        var files = [
            "etc/passwd": "tagrouter:x:999:999::/var/lib/tagrouter:/usr/sbin/nologin\n",
            "etc/group": "plugdev:x:46:tagrouter\ntagrouter:x:999:\n",
            "sys/bus/usb/devices/1-1/idVendor": "072f\n", "sys/bus/usb/devices/1-1/idProduct": "2200\n",
            "sys/bus/usb/devices/1-1/busnum": "1\n", "sys/bus/usb/devices/1-1/devnum": "7\n",
            "dev/bus/usb/001/007": "",
        ]
        for (pid, argv) in processes { files["proc/\(pid)/cmdline"] = argv.joined(separator: "\0") + "\0" }
        for (path, content) in files {
            let url = URL(fileURLWithPath: root + "/" + path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try content.write(to: url, atomically: true, encoding: .utf8)
        }
        #expect(chown(root + "/dev/bus/usb/001/007", 0, 46) == 0 && chmod(root + "/dev/bus/usb/001/007", 0o660) == 0)
        return root
    }

    static func config(_ setup: Setup, port: Int, valid: Bool = true) throws -> String {
        let file = setup.directory + "/doctor.yaml"
        let routes = valid ? "routes: [{name: all, actions: [mqtt]}]" : "routes: [{name: all, actions: [mqtt], contiue: true}]"
        try "mqtt: {host: 127.0.0.1, port: \(port)}\n\(routes)\n".write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    /// The daemon is the one answering at the control socket (as `status` finds it), named by its pid and config.
    @Test func allWellWithARunningDaemonAndABroker() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let broker = try await MosquittoBroker()
        let simulator = try await setup.simulator(pacing: false)
        defer { simulator.signal(SIGTERM) }
        let daemon = try setup.daemon(config: """
            readers: [{ name: front-door, device: "pn532_uart:\(setup.link)" }]
            mqtt: {host: 127.0.0.1, port: \(broker.port)}
            routes: [{ name: up, match: { event: reader.connected }, actions: [{ log: "connected {{reader}}" }] }]
            """)
        defer { daemon.signal(SIGTERM) }
        try await daemon.waitForStderr(containing: "mqtt connected")
        try await daemon.waitForStdout(containing: "connected front-door")
        let root = try Self.machine(setup, processes: [:])
        let config = try Self.config(setup, port: broker.port)
        let control = setup.directory + "/control.sock"
        let run = try await ToolRun(BuiltProducts.tagrouter.path, ["doctor", "--root", root, "--config", config, "--control", control])
        await broker.stop()
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.allSatisfy { $0.hasPrefix("✓ ") }, "\(run.stdout)")
        #expect(lines.contains("✓ config: \(config) is valid (1 reader(s), 1 route(s))"))
        #expect(lines.contains("✓ daemon: tagrouter (pid \(daemon.pid), config \(setup.directory)/tagrouter.yaml) at \(control) is healthy"), "\(run.stdout)")
        #expect(lines.contains("✓ MQTT broker: 127.0.0.1:\(broker.port) accepts connections"))
        #expect(lines.contains { $0.hasPrefix("✓ USB reader ACS ACR122U /dev/bus/usb/001/007 (group plugdev, mode 660): tagrouter can open it") })
    }

    @Test func aBadConfigBlocksAndAMissingDaemonOrBrokerIsSaid() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        // Another process's `tagrouter run` is not taken for the daemon: none answers at the socket.
        let root = try Self.machine(setup, processes: ["4321": ["/usr/bin/tagrouter", "run"]])
        let closedPort = try MosquittoBroker.freePort()
        let good = try Self.config(setup, port: closedPort)
        let control = setup.directory + "/control.sock"
        let run = try await ToolRun(BuiltProducts.tagrouter.path, ["doctor", "--root", root, "--config", good, "--control", control])
        #expect(run.status == 0, "a stopped daemon or broker does not stop reading: \(run.stdout)")
        #expect(run.stdout.contains("✗ daemon: none answers at \(control) ("), "\(run.stdout)")
        #expect(!run.stdout.contains("4321"), "\(run.stdout)")
        #expect(run.stdout.contains("✗ MQTT broker: 127.0.0.1:\(closedPort) unreachable (connection refused) → "))

        let bad = try Self.config(setup, port: closedPort, valid: false)
        let broken = try await ToolRun(BuiltProducts.tagrouter.path, ["doctor", "--root", root, "--config", bad])
        #expect(broken.status == 1)
        #expect(broken.stdout.contains("✗ config: \(bad) has 1 problem → tagrouter check-config \(bad)"))
        #expect(broken.stderr == "error: 1 problem stops tags being read\n")
    }

    /// A serial reader the config names on a port no list knows (a Pi's `ttyS0`): checked as that
    /// reader, not "no reader"; the daemon reading from it is DEGRADED when it cannot, and doctor says so.
    @Test func theConfiguredSerialReaderIsCheckedAndADegradedDaemonIsSaid() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let root = setup.directory + "/machine"
        for (path, content) in ["etc/passwd": "tagrouter:x:999:999::/var/lib/tagrouter:/usr/sbin/nologin\n",
                                "etc/group": "dialout:x:20:tagrouter\ntagrouter:x:999:\n", "dev/ttyS0": ""] {
            let url = URL(fileURLWithPath: root + "/" + path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try content.write(to: url, atomically: true, encoding: .utf8)
        }
        #expect(chown(root + "/dev/ttyS0", 0, 20) == 0 && chmod(root + "/dev/ttyS0", 0o660) == 0)
        let config = setup.directory + "/serial.yaml"
        try "readers: [{ name: door, device: \"pn532_uart:/dev/ttyS0\" }]\nroutes: [{name: all, actions: [log]}]\n"
            .write(toFile: config, atomically: true, encoding: .utf8)
        // A daemon whose reader cannot be opened (here, where there is no such port) is DEGRADED.
        let daemon = try setup.daemon(config: "readers: [{ name: door, device: \"pn532_uart:\(setup.directory)/no-such-port\" }]\nroutes: [{name: all, actions: [log]}]\n")
        defer { daemon.signal(SIGTERM) }
        try await daemon.waitForStderr(containing: "control socket ready")
        let control = setup.directory + "/control.sock"
        let run = try await ToolRun(BuiltProducts.tagrouter.path, ["doctor", "--root", root, "--config", config, "--control", control])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("✓ reader 'door' on /dev/ttyS0 (group dialout, mode 660): tagrouter can open it"), "\(run.stdout)")
        #expect(!run.stdout.contains("no known USB reader"), "\(run.stdout)")
        #expect(run.stdout.contains("✗ daemon: tagrouter (pid \(daemon.pid), config \(setup.directory)/tagrouter.yaml) at \(control) is DEGRADED: reader door is "), "\(run.stdout)")
    }

    /// Root reads what the service's user cannot: doctor, run as root, checks the config as that user reads it.
    @Test func theConfigIsCheckedAsTheServicesUserReadsIt() async throws {
        guard getuid() == 0 else { return }  // judging another user's access means being root
        let setup = try Setup()
        defer { setup.remove() }
        let tagrouter = try BuiltProducts.tagrouterForOtherUsers(in: setup.directory)
        let config = setup.directory + "/tagrouter.yaml"
        try "tags: {file: tags.yaml}\nroutes: [{name: all, actions: [log]}]\n".write(toFile: config, atomically: true, encoding: .utf8)
        try "- {name: fob, uid: 04a224b2}\n".write(toFile: setup.directory + "/tags.yaml", atomically: true, encoding: .utf8)
        chmod(setup.directory + "/tags.yaml", 0o600)
        let control = setup.directory + "/control.sock"
        let run = try await ToolRun(tagrouter, ["doctor", "--user", "nobody", "--config", config, "--control", control])
        #expect(run.stdout.contains(
            "✗ config: \(config) is valid for root but not as user nobody reads it: \(config):1:14: tags.file: cannot read the tags file \(setup.directory)/tags.yaml: permission denied to user nobody"),
            "\(run.stdout)\(run.stderr)")
        chmod(setup.directory + "/tags.yaml", 0o644)
        let readable = try await ToolRun(tagrouter, ["doctor", "--user", "nobody", "--config", config, "--control", control])
        #expect(readable.stdout.contains("✓ config: \(config) is valid (1 reader(s), 1 route(s))"), "\(readable.stdout)")
    }

    @Test func anUnknownUserNamesThePasswordFileOfTheRootGiven() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let root = try Self.machine(setup, processes: [:])
        let run = try await ToolRun(BuiltProducts.tagrouter.path, ["doctor", "--root", root, "--user", "nobody-here"])
        #expect(run.status == 64)
        #expect(run.stderr.hasPrefix("error: no user 'nobody-here' in \(root)/etc/passwd\n"))
    }
}

import ChildProcess
import DaemonControl
import FoundationEssentials
import Glibc
import MQTTPlugin
import OrderedJSON
import TagReader
import TagRouter
import TagRouterDaemon

/// `tagrouter doctor`: checks the machine and the setup, one line per check, ✓ or ✗
/// with the command that fixes it; exit status 1 when something stops tags being read.
enum DoctorCommand: Command {
    static let name = "doctor"
    static let summary = "check the machine and the setup: readers, permissions, config, service, broker"
    static let about = """
        Checks, one line each (✓ fine, ✗ wrong → the command that fixes it): kernel
        NFC modules, pcscd, the config's readers, USB readers and whether the user can
        open them, USB autosuspend, serial ports, a Raspberry Pi's UART and serial
        console, I²C and SPI devices, the libnfc settings you made, the config (as the
        service's user reads it), the daemon (found at its control socket, as `status`
        finds it) and whether it is healthy, the MQTT broker. Exit status 1 when
        something stops tags being read.
        """
    static let configOption = ValueOption<String?>("--config", placeholder: "FILE", whenAbsent: "the one `run` would use", help: "the config to check")
    static let userOption = ValueOption<String?>(
        "--user", placeholder: "NAME", whenAbsent: "tagrouter when that user exists, else you", help: "whose access to the readers to judge")
    static let rootOption = ValueOption("--root", placeholder: "DIR", default: "/", help: "check the system mounted at DIR (an SD card)")
    static let options: [any DeclaredOption] = [configOption, userOption, rootOption, ControlOption.option]

    static func run(_ arguments: Arguments) async throws(CLIError) {
        var arguments = arguments
        let configPath = try arguments.value(of: configOption)
        let userName = try arguments.value(of: userOption)
        // With its slash, so files under it are `root + "etc/passwd"`.
        var root = try arguments.value(of: rootOption)
        if !root.hasSuffix("/") { root += "/" }
        let control = try ControlOption.clientPath(&arguments)
        try arguments.finish()

        let name = userName ?? (MachineAccount.lookup("tagrouter", root: root) != nil ? "tagrouter" : currentUserName)
        guard let account = MachineAccount.lookup(name, root: root) else { throw .usage("no user '\(name)' in \(root)etc/passwd") }
        var config = configCheck(configPath)
        if root == "/", config.loaded != nil, let file = config.file, let asUser = await configCheck(file, as: account) { config.check = asUser }
        var machine = DoctorMachine(root: root, account: account, devices: config.loaded?.readers.map(\.device) ?? [])
        machine.configured = config.loaded.map(configuredNodes) ?? []
        var checks = BuiltinPlugins.readers.drivers.flatMap { $0.doctorChecks(machine) }
        checks.append(config.check)
        checks.append(daemonCheck(control: control.path))
        if root == "/", let config = config.loaded { checks += await ServiceSandboxCheck.checks(readers: config.readers) }
        if let config = config.loaded, let broker = brokerCheck(config) { checks.append(broker) }

        for check in checks { print(check.line) }
        let blocking = checks.filter { !$0.passed && $0.blocking }.count
        if blocking > 0 { throw .runtime(blocking == 1 ? "1 problem stops tags being read" : "\(blocking) problems stop tags being read") }
    }

    static var currentUserName: String {
        getpwuid(geteuid()).map { String(cString: $0.pointee.pw_name) } ?? "root"
    }

    static func configCheck(_ path: String?) -> (check: DoctorCheck, loaded: RouterConfig?, file: String?) {
        let file: ConfigFile
        do {
            file = try ConfigFile.named(path)
        } catch {
            return (.failed("config: \(error.message)", fix: "tagrouter check-config FILE"), nil, nil)
        }
        do {
            let config = try file.load(ConfigLoader(registry: BuiltinPlugins.registry, dryRun: true))
            return (.ok("config: \(file.name) is valid (\(config.readers.count) reader(s), \(config.routes.count) route(s))"), config, file.path)
        } catch {
            let count = error.errors.count
            return (.failed("config: \(file.name) has \(count) problem\(count == 1 ? "" : "s")", fix: "tagrouter check-config \(file.name)"), nil, file.path)
        }
    }

    /// The config `file`, valid for root, as `account` (the service's user) reads it: root reads files the
    /// service cannot (a tags or secret file left root's), so the doctor run as root asks `check-config`
    /// run as that user (`setpriv`): a problem, or a file it cannot read (which check-config lets pass with a
    /// warning, since a secret may be made later). Nil when this is not root judging another user, or that user reads it all.
    static func configCheck(_ file: String, as account: MachineAccount) async -> DoctorCheck? {
        guard geteuid() == 0, account.uid != 0, let binary = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        let groups = account.groups.sorted().map(String.init).joined(separator: ",")
        let command = ChildCommand(["/usr/bin/setpriv", "--reuid=\(account.uid)", "--regid=\(account.gid)", "--groups=\(groups)", binary, "check-config", file])
        guard let end = try? await ChildProcess.run(command, options: ChildOptions(timeout: .seconds(60), tailBytes: 64 << 10)) else { return nil }
        let lines = end.stderrText.split(separator: "\n")
        let unreadable = lines.first { $0.contains("cannot read") }
        if case .exited(0) = end.status, unreadable == nil { return nil }
        let problem = (unreadable ?? lines.first { !$0.contains(": warning: ") }).map(String.init) ?? "check-config failed"
        return .failed(
            "config: \(file) is valid for root but not as user \(account.name) reads it: \(problem)",
            fix: "make it readable by \(account.name) (docs/guide/service.md \"Secrets\"), then sudo -u \(account.name) tagrouter check-config \(file)")
    }

    /// The readers the config names by a device node: `pn532_uart:/dev/ttyS0:115200` → (name, `/dev/ttyS0`).
    static func configuredNodes(_ config: RouterConfig) -> [(reader: String, node: String)] {
        config.readers.compactMap { reader in
            let parts = reader.device.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count > 1, parts[1].hasPrefix("/dev/") else { return nil }
            return (reader.name, String(parts[1]))
        }
    }

    /// The daemon that answers at `control`, the socket every command finds it by: which one
    /// (pid, config) and whether it is healthy — DEGRADED with the reasons `status` gives.
    static func daemonCheck(control: String) -> DoctorCheck {
        let client: ControlClient
        let reply: JSONValue
        do throws(CLIError) {
            (client, reply) = try ControlOption.ask(control, as: "tagrouter doctor", "status")
        } catch {
            return .failed("daemon: none answers at \(control) (\(error.message))", fix: "sudo systemctl enable --now tagrouter; journalctl -u tagrouter says why it stopped", blocking: false)
        }
        client.close()
        let which = "daemon: tagrouter (\(ControlOption.daemon(client.hello))) at \(control)"
        guard reply.value(atPath: "status.healthy") != true else { return .ok(which + " is healthy") }
        var problems: [String] = []
        if case .array(let listed)? = reply.value(atPath: "status.problems") { problems = listed.map(\.plainText) }
        return .failed(which + " is DEGRADED: " + problems.joined(separator: "; "), fix: "tagrouter status; journalctl -u tagrouter", blocking: false)
    }

    static func brokerCheck(_ config: RouterConfig) -> DoctorCheck? {
        guard let mqtt = config.plugins.compactMap({ $0 as? MQTTPlugin }).first else { return nil }
        let settings = mqtt.connection.settings
        let place = "\(settings.host):\(settings.port)"
        guard let failure = BrokerProbe.failure(host: settings.host, port: settings.port) else {
            return .ok("MQTT broker: \(place) accepts connections")
        }
        return .failed(
            "MQTT broker: \(place) unreachable (\(failure))",
            fix: "start it (sudo systemctl start mosquitto) or correct mqtt.host / mqtt.port", blocking: false)
    }
}

import FoundationEssentials
import Glibc
import MQTTPlugin
import TagReader
import TagRouter
import TagRouterDaemon

/// `tagrouter doctor`: checks the machine and the setup, one line per check, ✓ or ✗
/// with the command that fixes it; exit status 1 when something stops tags being read.
enum DoctorCommand: Command {
    static let name = "doctor"
    static let summary = "check the machine and the setup: readers, permissions, config, service, broker"
    static let about = """
        Usage: tagrouter doctor [--config FILE] [--user NAME] [--root DIR]

        Checks, one line each (✓ fine, ✗ wrong → the command that fixes it): kernel
        NFC modules, pcscd, USB readers and whether the user can open them, USB
        autosuspend, serial ports, a Raspberry Pi's UART and serial console, I²C and
        SPI devices, the libnfc settings you made, the config, the daemon, the MQTT
        broker. Exit status 1 when something stops tags being read.
        """
    static let configOption = CommandOption("--config", value: "FILE", help: "the config to check (default: the one `run` would use)")
    static let userOption = CommandOption("--user", value: "NAME", help: "whose access to the readers to judge (default: tagrouter when\nthat user exists, else you)")
    static let rootOption = CommandOption("--root", value: "DIR", help: "check a system mounted at DIR (an SD card) instead of this one")
    static let options = [configOption, userOption, rootOption]

    static func run(_ arguments: Arguments) async throws(CLIError) {
        var arguments = arguments
        let configPath = try arguments.value(of: configOption)
        let userName = try arguments.value(of: userOption)
        // With its slash, so files under it are `root + "etc/passwd"`.
        let root = (try arguments.value(of: rootOption)).map { $0.hasSuffix("/") ? $0 : $0 + "/" } ?? "/"
        try arguments.finish()

        let name = userName ?? (MachineAccount.lookup("tagrouter", root: root) != nil ? "tagrouter" : currentUserName)
        guard let account = MachineAccount.lookup(name, root: root) else { throw .usage("no user '\(name)' in \(root)etc/passwd") }
        let config = configCheck(configPath)
        let machine = DoctorMachine(root: root, account: account, devices: config.loaded?.readers.map(\.device) ?? [])
        var checks = BuiltinPlugins.readers.drivers.flatMap { $0.doctorChecks(machine) }
        checks.append(config.check)
        checks.append(daemonCheck(root: root))
        if root == "/", let config = config.loaded { checks += await ServiceSandboxCheck.checks(readers: config.readers) }
        if let config = config.loaded, let broker = brokerCheck(config) { checks.append(broker) }

        for check in checks { print(check.line) }
        let blocking = checks.filter { !$0.passed && $0.blocking }.count
        if blocking > 0 { throw .runtime(blocking == 1 ? "1 problem stops tags being read" : "\(blocking) problems stop tags being read") }
    }

    static var currentUserName: String {
        getpwuid(geteuid()).map { String(cString: $0.pointee.pw_name) } ?? "root"
    }

    static func configCheck(_ path: String?) -> (check: DoctorCheck, loaded: RouterConfig?) {
        let file: ConfigFile
        do {
            file = try ConfigFile.named(path)
        } catch {
            return (.failed("config: \(error.message)", fix: "tagrouter check-config FILE"), nil)
        }
        do {
            let config = try file.load(ConfigLoader(registry: BuiltinPlugins.registry, dryRun: true))
            return (.ok("config: \(file.name) is valid (\(config.readers.count) reader(s), \(config.routes.count) route(s))"), config)
        } catch {
            let count = error.errors.count
            return (.failed("config: \(file.name) has \(count) problem\(count == 1 ? "" : "s")", fix: "tagrouter check-config \(file.name)"), nil)
        }
    }

    /// A `tagrouter run` other than this process, found by command name and arguments under `root` (ending in `/`).
    static func daemonCheck(root: String) -> DoctorCheck {
        let proc = root + "proc/"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: proc)) ?? []
        let own = String(getpid())
        let daemon = entries.sorted().first { pid in
            guard pid != own, pid.allSatisfy(\.isNumber),
                let arguments = FileManager.default.contents(atPath: proc + pid + "/cmdline")
            else { return false }
            let words = arguments.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            return words.first?.hasSuffix("tagrouter") == true && words.dropFirst().first == "run"
        }
        if let daemon { return .ok("daemon: running (pid \(daemon))") }
        return .failed("daemon: not running", fix: "sudo systemctl enable --now tagrouter", blocking: false)
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

import ChildProcess
import FoundationEssentials
import TagCore
import TagReader
import TagRouterDaemon

/// `doctor`'s look at the system service's device sandbox: a configured reader on a device node the
/// unit's `DevicePolicy=`/`DeviceAllow=` do not admit cannot be opened by the service, however well the
/// hardware works — doctor runs outside that sandbox, so it asks systemd (`systemctl show`) what the
/// unit admits, drop-ins included, and names the unit and the drop-in line that fixes it.
enum ServiceSandboxCheck {
    static let unit = "tagrouter.service"

    /// One check per configured reader on a device node (`pn532_uart:/dev/…`); none when the unit is not
    /// installed or systemctl cannot say (no systemd here).
    static func checks(readers: [ReaderConfig]) async -> [DoctorCheck] {
        let nodes = readers.compactMap { reader in ReaderNode(reader) }
        guard !nodes.isEmpty, let sandbox = await unitSandbox() else { return [] }
        let devices = (try? String(contentsOfFile: "/proc/devices", encoding: .utf8)) ?? ""
        return nodes.map { check($0, sandbox: sandbox, devices: devices) }
    }

    static func check(_ reader: ReaderNode, sandbox: DeviceSandbox, devices: String) -> DoctorCheck {
        let shown = reader.port == reader.path ? reader.path : "\(reader.port) (\(reader.path))"
        if sandbox.admits(reader.node, devices: devices, needs: reader.access) {
            return .ok("reader '\(reader.name)': \(unit)'s sandbox admits \(shown)")
        }
        let entry = DeviceSandbox.entry(for: reader.node, path: reader.path, devices: devices)
        return .failed(
            "reader '\(reader.name)': \(unit)'s sandbox does not admit \(shown) (DevicePolicy=\(sandbox.policy.rawValue), DeviceAllow=)",
            fix: "sudo systemctl edit tagrouter, add `DeviceAllow=\(entry) \(reader.access == .read ? "r" : "rw")` under [Service], then sudo systemctl restart tagrouter")
    }

    /// A configured reader's device node, when it names one that exists.
    struct ReaderNode {
        var name: String
        /// As the config says it (`/dev/serial0`).
        var port: String
        /// With symlinks resolved (`/dev/ttyAMA0`).
        var path: String
        var node: DeviceSandbox.Node
        /// What the reader does with it (a keyboard reader only reads its input node).
        var access: DeviceNodePath.Access

        init?(_ reader: ReaderConfig) {
            guard let device = BuiltinPlugins.readers.driver(for: reader.device).deviceNode(reader.device),
                let node = DeviceSandbox.Node(path: device.path)
            else { return nil }
            self.name = reader.name
            self.port = device.port
            self.path = device.path
            self.node = node
            access = device.access
        }
    }

    /// The unit's `DevicePolicy=` and `DeviceAllow=` as systemd has loaded them; nil when it is not loaded.
    static func unitSandbox() async -> DeviceSandbox? {
        let command = ChildCommand(["systemctl", "show", unit, "--property=LoadState,DevicePolicy,DeviceAllow"])
        guard let ended = try? await ChildProcess.run(command, options: ChildOptions(timeout: .seconds(10), tailBytes: 64 << 10)),
            ended.succeeded
        else { return nil }
        return DeviceSandbox(systemctlShow: ended.stdoutText)
    }
}

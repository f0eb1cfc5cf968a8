import FoundationEssentials
import Glibc

/// A service's device sandbox, systemd's `DevicePolicy=` and `DeviceAllow=`: which device nodes the
/// service may open. The packaged unit admits USB, serial, I²C and SPI readers only, so a reader on any
/// other node (a pseudo-terminal, `/dev/ttyAMA1`) is refused by the kernel with `EPERM` although its
/// mode bits let the service's user in. Two sides ask:
/// - the daemon, inside the sandbox, when a reader does not open: `refusal(of:)` tells the sandbox
///   apart from a missing device or missing permissions, and names the unit;
/// - `doctor`, outside it, with the unit's settings from `systemctl show`: `admits(_:)`.
public struct DeviceSandbox: Sendable, Equatable {
    /// `DevicePolicy=`: `auto` restricts only when `DeviceAllow=` lists something; `closed` adds the
    /// standard pseudo devices (`/dev/null`, `/dev/tty`, …) to the list, which no reader is; `strict`
    /// is the list alone.
    public enum Policy: String, Sendable { case auto, closed, strict }

    public var policy: Policy
    /// `DeviceAllow=` entries as `systemctl show` prints them: `char-pts rw`, `/dev/ttyAMA0 rw`.
    public var allowed: [String]

    public init(policy: Policy, allowed: [String]) {
        self.policy = policy
        self.allowed = allowed
    }

    /// From `systemctl show UNIT --property=LoadState,DevicePolicy,DeviceAllow` (one `DeviceAllow=` line per
    /// entry); nil when the unit is not loaded.
    public init?(systemctlShow text: String) {
        var loaded = false
        var policy: Policy?
        var allowed: [String] = []
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            let value = String(line[line.index(after: equals)...])
            switch line[..<equals] {
            case "LoadState": loaded = value == "loaded"
            case "DevicePolicy": policy = Policy(rawValue: value)
            case "DeviceAllow" where !value.isEmpty: allowed.append(value)
            default: break
            }
        }
        guard loaded, let policy else { return nil }
        self.init(policy: policy, allowed: allowed)
    }

    /// A device node: character or block, and its number.
    public struct Node: Sendable, Equatable {
        public var character: Bool
        public var major: UInt32
        public var minor: UInt32

        public init(character: Bool, major: UInt32, minor: UInt32) {
            self.character = character
            self.major = major
            self.minor = minor
        }

        /// The node at `path` (through symlinks); nil when there is none or it is no device.
        public init?(path: String) {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            let type = info.st_mode & S_IFMT
            guard type == S_IFCHR || type == S_IFBLK else { return nil }
            // glibc's encoding of dev_t (major() and minor() are macros, which Swift does not import).
            let device = UInt64(info.st_rdev)
            let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~0xfff)
            let minor = (device & 0xff) | ((device >> 12) & ~0xff)
            self.init(character: type == S_IFCHR, major: UInt32(truncatingIfNeeded: major), minor: UInt32(truncatingIfNeeded: minor))
        }
    }

    /// Whether the sandbox lets the service open `node` as a reader `needs` (reading and writing, or reading). `devices` is the
    /// text of `/proc/devices`, which names each major number (`136 pts`) for `char-pts` entries;
    /// `nodeAt` finds the node a path entry (`/dev/ttyAMA0`) names.
    public func admits(
        _ node: Node, devices: String, needs: DeviceNodePath.Access = .readWrite, nodeAt: (String) -> Node? = { Node(path: $0) }
    ) -> Bool {
        if policy == .auto && allowed.isEmpty { return true }
        let names = Self.names(of: node, in: devices)
        return allowed.contains { entry in
            let words = entry.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard let target = words.first else { return false }
            let access = words.count > 1 ? words[1] : "rwm"
            guard access.contains("r") && (needs == .read || access.contains("w")) else { return false }
            if target.hasPrefix("/") { return nodeAt(target) == node }
            let (kind, pattern) = target.hasPrefix("char-") ? (true, target.dropFirst(5)) : target.hasPrefix("block-") ? (false, target.dropFirst(6)) : (!node.character, ""[...])
            guard kind == node.character, !pattern.isEmpty else { return false }
            return names.contains { fnmatch(String(pattern), $0, 0) == 0 }
        }
    }

    /// The driver names `/proc/devices` gives the node's major number, in its section (character or block).
    static func names(of node: Node, in devices: String) -> [String] {
        var inSection = false
        var names: [String] = []
        for line in devices.split(separator: "\n") {
            if line.hasSuffix(":") {
                inSection = line == (node.character ? "Character devices:" : "Block devices:")
                continue
            }
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if inSection, fields.count == 2, UInt32(fields[0]) == node.major { names.append(String(fields[1])) }
        }
        return names
    }

    /// The `DeviceAllow=` entry that admits `node`: its class (`char-pts`) when `/proc/devices` names
    /// one, else `path`.
    public static func entry(for node: Node, path: String, devices: String) -> String {
        names(of: node, in: devices).first.map { (node.character ? "char-" : "block-") + $0 } ?? path
    }

    // MARK: - Inside the sandbox

    /// Why a reader's device node (`pn532_uart:/dev/ttyAMA1`'s, a keyboard reader's input node) cannot be
    /// opened as the reader needs it when the cause is a device sandbox: the node exists, its mode bits let
    /// this process in, and `open` (read-write, or read-only for a node only read) says `EPERM`, which
    /// only a device cgroup (systemd's `DeviceAllow=`, a container's) gives for a device node. Names the
    /// systemd unit this process runs in and the drop-in that admits the node; nil for any other outcome.
    public static func refusal(of device: DeviceNodePath, procRoot: String = "/proc/") -> String? {
        let path = device.path
        guard let node = Node(path: path), DeviceModeBits.access(path, needs: device.access).granted else { return nil }
        let descriptor = open(path, (device.access == .read ? O_RDONLY : O_RDWR) | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        if descriptor >= 0 {
            close(descriptor)
            return nil
        }
        guard errno == EPERM else { return nil }
        let devices = (try? String(contentsOfFile: procRoot + "devices", encoding: .utf8)) ?? ""
        let entry = entry(for: node, path: path, devices: devices)
        let shown = device.shown
        guard let unit = serviceUnit(cgroups: (try? String(contentsOfFile: procRoot + "self/cgroup", encoding: .utf8)) ?? "") else {
            return "the device sandbox this runs in (a container's device cgroup) does not admit \(shown): "
                + "opening it gives 'Operation not permitted'"
        }
        let systemctl = unit.user ? "systemctl --user" : "sudo systemctl"
        let name = unit.name.hasSuffix(".service") ? String(unit.name.dropLast(8)) : unit.name
        return "\(unit.name)'s sandbox does not admit \(shown) (DevicePolicy=, DeviceAllow=): "
            + "add `DeviceAllow=\(entry) \(device.access == .read ? "r" : "rw")` under [Service] with `\(systemctl) edit \(name)`, "
            + "then `\(systemctl) restart \(name)`"
    }

    /// The systemd service a process runs in, from its `/proc/PID/cgroup` (`0::/system.slice/tagrouter.service`),
    /// and whether a user's service manager runs it (`…/user@1000.service/app.slice/tagrouter.service`).
    static func serviceUnit(cgroups: String) -> (name: String, user: Bool)? {
        for line in cgroups.split(separator: "\n") {
            guard let path = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).last else { continue }
            let parts = path.split(separator: "/")
            guard let unit = parts.last(where: { $0.hasSuffix(".service") }) else { continue }
            return (String(unit), parts.contains { $0.hasPrefix("user@") && $0 != unit })
        }
        return nil
    }
}

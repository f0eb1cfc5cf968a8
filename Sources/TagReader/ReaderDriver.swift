import TagCore
import TagKit
import TagRouter

/// One kind of reader — libnfc, PC/SC, a keyboard-wedge input device — as the
/// one place that knows it: its `device:` scheme, options and checks
/// (`ReaderKind`), the running reader, what `tagrouter devices` and `doctor`
/// say about it, and one-shot access to a tag for `read`/`write --direct`.
/// Listed once in `ReaderDrivers` (the daemon's `BuiltinPlugins.readers`);
/// nothing else looks at a device string to tell kinds apart.
///
/// An implementer guarantees: the reader it makes runs on a dedicated thread of
/// its own, says why its device does not open through a `DeviceWaitReport`
/// (`reader.waiting`, so `status` shows it), emits `reader.connected` when it can
/// see tags and the scan model's events after that (through `emit`, never
/// blocking), reopens a lost device by itself, and calls `finished` exactly once
/// when it has ended after `stop()` (or by itself under `if_busy: exit`).
public protocol ReaderDriver: ReaderKind {
    /// The running reader for `config`: `present` holds the arrivals of tags a previous
    /// reader of the same device reported and did not remove (they do not arrive again);
    /// `jobs`, the read and write jobs waiting for its tags.
    static func reader(
        _ config: ReaderConfig, present: [TagEvent], jobs: TagJobQueue?,
        emit: @escaping @Sendable (TagEvent) -> Void, finished: @escaping @Sendable () -> Void
    ) -> any ReaderThread
    /// `tagrouter devices`: the readers of this kind on this machine, each opened
    /// (or asked for) once, and `extra` devices of this kind the user named.
    static func listDevices(extra: [String]) -> DeviceListing
    /// `tagrouter doctor`: what stops readers of this kind on `machine`, one check a line.
    static func doctorChecks(_ machine: DoctorMachine) -> [DoctorCheck]
    /// One-shot access, on the calling (dedicated) thread: waits up to `timeout` for a
    /// tag on `device`, identifies it and runs `body` with it; fails with `TagAccessError`.
    static func reachTag<T>(
        device: String, timeout: Duration, ifBusy: ReaderConfig.BusyPolicy, _ body: (TagInfo, any NDEFTagDriver) throws -> T
    ) throws -> T
    /// Whether another process (a running daemon) holds `device` now. False by default.
    static func isHeldElsewhere(_ device: String) -> Bool
    /// For the one-shot commands: `device` with `auto` resolved, once it opened, or
    /// why it does not (what `tagrouter devices` would say). By default `device` as given.
    static func opening(_ device: String) -> Result<String, DeviceUnavailable>
    /// Whether a reader of `config` shows a tap's outcome itself (its LEDs), so the
    /// daemon must tell it. False by default.
    static func showsOutcomes(_ config: ReaderConfig) -> Bool
    /// The device node a reader of `device` opens itself (a serial port), for the checks of a
    /// device sandbox (systemd's `DeviceAllow=`); nil when it names none that exists. Nil by default.
    static func deviceNode(_ device: String) -> DeviceNodePath?
}

extension ReaderDriver {
    public static func isHeldElsewhere(_ device: String) -> Bool { false }
    public static func opening(_ device: String) -> Result<String, DeviceUnavailable> { .success(device) }
    public static func showsOutcomes(_ config: ReaderConfig) -> Bool { false }
    public static func deviceNode(_ device: String) -> DeviceNodePath? { nil }
}

/// A device node a reader opens: as the config names it (`/dev/serial0`), with every
/// symlink resolved (`/dev/ttyAMA0`), and the access the reader needs to it.
public struct DeviceNodePath: Sendable, Equatable {
    /// What a reader does with its node: a serial board's is read and written, an input device's only read.
    public enum Access: Sendable, Equatable {
        case read, readWrite
    }

    public var port: String
    public var path: String
    public var access: Access

    public init(port: String, path: String, access: Access = .readWrite) {
        self.port = port
        self.path = path
        self.access = access
    }

    /// How a message shows it: the port, and the node it leads to when they differ.
    public var shown: String { port == path ? path : "\(port) → \(path)" }
}

/// Why a device did not open for a one-shot command: one line each, the first saying what failed.
public struct DeviceUnavailable: Error, Sendable {
    public var lines: [String]

    public init(_ lines: [String]) { self.lines = lines }
}

/// What `tagrouter devices` prints for one reader kind.
public struct DeviceListing: Sendable, Equatable {
    /// Printed as they are, one a line: the library's version, then one reader a
    /// line as `device<TAB>what it is`.
    public var lines: [String]
    /// Readers found, usable or not.
    public var found: Int
    /// Readers that can be used now.
    public var usable: Int
    /// What applies on this machine to readers that were not found or failed to open.
    public var causes: [String]

    public init(lines: [String], found: Int, usable: Int, causes: [String] = []) {
        self.lines = lines
        self.found = found
        self.usable = usable
        self.causes = causes
    }
}

/// The machine `tagrouter doctor` judges: a root folder (`/`, or an SD card's
/// mount), the account whose access to the readers counts, and the devices
/// the config names.
public struct DoctorMachine: Sendable {
    /// Ends in `/`.
    public var root: String
    public var account: MachineAccount
    /// The `device:` of every reader in the config (none when it did not load).
    public var devices: [String]
    /// The readers the config names by a device node (`pn532_uart:/dev/ttyS0` → `/dev/ttyS0`): a driver
    /// checks each as that reader, so one on a port no list of its knows is not "no reader".
    public var configured: [(reader: String, node: String)] = []

    public init(root: String, account: MachineAccount, devices: [String] = []) {
        self.root = root.hasSuffix("/") ? root : root + "/"
        self.account = account
        self.devices = devices
    }
}

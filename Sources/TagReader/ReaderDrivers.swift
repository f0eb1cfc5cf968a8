import TagCore
import TagRouter

/// The reader drivers a program knows, in the order `devices` and `doctor` show
/// them: the daemon's list is `BuiltinPlugins.readers`; tests build their own.
/// Which driver takes a `device:` is decided here (through `ReaderKinds`), and
/// nowhere else.
public struct ReaderDrivers: Sendable {
    public let drivers: [any ReaderDriver.Type]
    /// The same drivers as the config sees them (for `PluginRegistry`).
    public let kinds: ReaderKinds

    /// One of `drivers` must have no scheme: it takes every device no other claims.
    public init(_ drivers: [any ReaderDriver.Type]) {
        precondition(drivers.contains { $0.scheme == nil }, "a reader registry needs a driver without a scheme")
        self.drivers = drivers
        kinds = ReaderKinds(drivers.map { $0 })
    }

    /// The driver that takes `device`.
    public func driver(for device: String) -> any ReaderDriver.Type {
        drivers[kinds.index(for: device) ?? 0]
    }

    /// How `--device` is written for each driver, for the commands' help.
    public var deviceHelp: String { kinds.deviceHelp }
}

/// A value of settings only one reader driver reads (its own `readers:` keys,
/// `ReaderKind.options`), kept in the reader's `ReaderConfig` so that a reload
/// that changes them restarts that reader, and the driver finds them when it
/// starts it.
public protocol DriverSettingsValue: Sendable {
    /// Whether `other` holds the same settings.
    func isEqual(to other: any DriverSettingsValue) -> Bool
}

extension DriverSettingsValue where Self: Equatable {
    public func isEqual(to other: any DriverSettingsValue) -> Bool { (other as? Self) == self }
}

/// A reader's driver-only settings, or none (the driver's defaults).
public struct DriverSettings: Sendable, Equatable {
    private let value: (any DriverSettingsValue)?

    public init(_ value: (any DriverSettingsValue)? = nil) { self.value = value }

    /// The settings when they are of type `T`.
    public func value<T: DriverSettingsValue>(as type: T.Type) -> T? { value as? T }

    public static func == (left: DriverSettings, right: DriverSettings) -> Bool {
        switch (left.value, right.value) {
        case (nil, nil): return true
        case (let left?, let right?): return left.isEqual(to: right)
        default: return false
        }
    }
}

import TagCore

extension ReaderConfig {
    /// The error for a `device:` whose `usb-port:` part (`portText`, what follows the
    /// driver's scheme) names no USB port, at the entry's `device` key; nil when it is fine
    /// or names no port. Drivers that take `usb-port:` call it from their `load`.
    public static func usbPortError(_ portText: String, in value: ConfigValue) -> ConfigError? {
        guard case .failure(let invalid)? = USBPortName.parse(portText) else { return nil }
        return ConfigError(mark: value.node["device"]?.mark ?? value.mark, path: "\(value.path).device", message: invalid.description)
    }
}

import Glibc

/// A message systemd did not get, with the reason: what the service does about
/// it is its own choice (the daemon logs it and carries on).
public struct SystemdError: Error, Sendable, CustomStringConvertible {
    /// What was being sent, and where (`sd_notify to NOTIFY_SOCKET=/run/systemd/notify`).
    public var operation: String
    /// Why: the text of the errno that libsystemd returned, or that libsystemd is not installed.
    public var reason: String

    init(operation: String, reason: String) {
        self.operation = operation
        self.reason = reason
    }

    /// libsystemd returned `-code`.
    init(operation: String, code: Int32) {
        self.init(operation: operation, reason: String(cString: strerror(code)))
    }

    public var description: String { "\(operation): \(reason)" }
}

import Glibc

/// A message systemd did not get, with the C library's reason: what the service
/// does about it is its own choice (the daemon logs it and carries on).
public struct SystemdError: Error, Sendable, CustomStringConvertible {
    /// What was being sent, and where (`sd_notify to NOTIFY_SOCKET=/run/systemd/notify`).
    public var operation: String
    /// The errno the library returned.
    public var code: Int32

    public var description: String { "\(operation): \(String(cString: strerror(code)))" }
}

import CSystemd
import Glibc

/// The service's side of systemd's notification protocol (sd_notify(3)) for a
/// `Type=notify` unit: `ready()` once the config is loaded and the router runs,
/// `status(_:)` for the line `systemctl status` shows, `watchdog()` every
/// `watchdogInterval` while the main loop and every reader thread make progress,
/// `reloading()` / `ready()` around a reload, `stopping()` when shutdown begins.
/// Outside systemd (no `NOTIFY_SOCKET`) every call does nothing, and libsystemd is not loaded.
public struct SystemdNotifier: Sendable {
    public init() {}

    /// Whether a service manager listens (`NOTIFY_SOCKET` is set).
    public var isListening: Bool { getenv("NOTIFY_SOCKET") != nil }

    /// How often to call `watchdog()`: half the unit's `WatchdogSec=`, as sd_watchdog_enabled(3)
    /// advises; nil when the unit has no watchdog or it is meant for another process (or libsystemd is missing,
    /// which the first notification reports).
    public var watchdogInterval: Duration? {
        var microseconds: UInt64 = 0
        guard getenv("WATCHDOG_USEC") != nil, case .success(let library) = LibSystemd.shared,
              library.watchdogEnabled(0, &microseconds) > 0, microseconds > 0 else { return nil }
        return .microseconds(Int64(microseconds / 2))
    }

    /// Start-up is complete; `status` (optional) is shown by `systemctl status`.
    public func ready(status: String? = nil) throws(SystemdError) {
        try send(["READY=1"] + (status.map { ["STATUS=" + Self.oneLine($0)] } ?? []))
    }

    /// A one-line state for humans: "2 readers connected · 6 routes · last tap 14:02:11 front-door".
    public func status(_ text: String) throws(SystemdError) {
        try send(["STATUS=" + Self.oneLine(text)])
    }

    /// The service is alive and making progress; systemd restarts it when these stop for `WatchdogSec=`.
    public func watchdog() throws(SystemdError) {
        try send(["WATCHDOG=1"])
    }

    /// A reload (SIGHUP) began; call `ready()` when the new config runs (or the old one was kept).
    public func reloading() throws(SystemdError) {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let microseconds = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
        try send(["RELOADING=1", "MONOTONIC_USEC=\(microseconds)"])
    }

    /// Shutdown began: draining the queues.
    public func stopping() throws(SystemdError) {
        try send(["STOPPING=1"])
    }

    private func send(_ assignments: [String]) throws(SystemdError) {
        guard let socket = getenv("NOTIFY_SOCKET").map({ String(cString: $0) }) else { return }
        let operation = "sd_notify \(assignments.first ?? "") to NOTIFY_SOCKET=\(socket)"
        let result = try LibSystemd.loaded(for: operation).notify(0, assignments.joined(separator: "\n"))
        guard result >= 0 else { throw SystemdError(operation: operation, code: -result) }
    }

    /// A newline would start another assignment (a reader name could otherwise say READY=1).
    static func oneLine(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 })
    }
}

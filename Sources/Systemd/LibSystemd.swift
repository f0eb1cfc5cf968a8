import CSystemd
import SystemKit

/// libsystemd's entry points, opened with `dlopen` and looked up by name the
/// first time the daemon talks to systemd, which it does only when systemd is
/// there (`NOTIFY_SOCKET` set, stderr the `JOURNAL_STREAM`): a daemon run
/// any other way maps neither libsystemd nor the compression and crypto
/// libraries it links (~0.8 MB resident: docs/development/memory.md).
struct LibSystemd: Sendable {
    let notify: tagrouter_sd_notify_fn
    let watchdogEnabled: tagrouter_sd_watchdog_enabled_fn
    let journalSendv: tagrouter_sd_journal_sendv_fn

    /// libsystemd, loaded once, or why it is not available.
    static let shared: Result<LibSystemd, SharedLibrary.Unavailable> = Result { () throws(SharedLibrary.Unavailable) in
        let library = try SharedLibrary(soname: "libsystemd.so.0", library: "libsystemd", package: "libsystemd0")
        return LibSystemd(
            notify: try library.function("sd_notify"), watchdogEnabled: try library.function("sd_watchdog_enabled"),
            journalSendv: try library.function("sd_journal_sendv"))
    }

    /// The loaded library, or a `SystemdError` saying that `operation` needs it.
    static func loaded(for operation: String) throws(SystemdError) -> LibSystemd {
        switch shared {
        case .success(let library): library
        case .failure(let unavailable): throw SystemdError(operation: operation, reason: unavailable.description)
        }
    }
}

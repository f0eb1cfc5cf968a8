import TagReader
import FoundationEssentials
import Glibc
import SystemKit

/// libnfc's settings from the environment as the user made them, and its own
/// log lines. libnfc prints its log on stderr at `LIBNFC_LOG_LEVEL` (and sets
/// that variable to 1 itself when it is absent), which would put raw lines such
/// as `Unable to find USB busses` inside tagrouter's log: they are off unless the
/// user set the level, and at libnfc's debug level under `--log-level debug`. In the
/// daemon's structured log (JSON, the journal) its lines become entries (`LibraryOutput`).
public enum LibNFCSettings {
    /// The `LIBNFC_*` variables the user set, taken before libnfc first ran.
    public static let user: [String: String] = ProcessInfo.processInfo.environment.filter { $0.key.hasPrefix("LIBNFC_") }

    /// Sets libnfc's log level once, before the first `nfc_init`.
    static let applied: Void = {
        guard user["LIBNFC_LOG_LEVEL"] == nil else { return }
        setenv("LIBNFC_LOG_LEVEL", Log.level == .debug ? "3" : "0", 1)
    }()
}

@preconcurrency import Glibc
import Lifecycle
import OrderedJSON
import SystemKit

/// The daemon's signals as a service: SIGHUP awaits `reload` (which holds no thread while it waits); SIGTERM or SIGINT
/// ends it, which begins the graceful shutdown of the daemon's service group.
struct DaemonSignals: Service {
    let signals: AsyncStream<Int32>
    let reload: @Sendable () async -> Void

    func run() async {
        for await number in signals {
            guard number == SIGHUP else {
                Log.info("stopping", JSONObject(["signal": .int(Int64(number))]))
                return
            }
            await reload()
        }
    }
}

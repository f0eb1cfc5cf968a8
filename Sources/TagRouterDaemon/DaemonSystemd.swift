import Lifecycle
import OrderedJSON
import Synchronization
import Systemd
import SystemKit
import TagRouter

/// The daemon's side of a `Type=notify` unit, as the first member of the
/// daemon's service group (so it is the first to stop): READY=1 once the group
/// runs, STATUS= kept current from the observer, WATCHDOG=1 every half
/// `WatchdogSec=` while the main loop (this service's own task) and every reader
/// thread make progress, RELOADING=1 / READY=1 around a reload, STOPPING=1
/// when the shutdown begins. Made only when systemd listens (`NOTIFY_SOCKET`).
final class DaemonSystemd: Service {
    private let notifier = SystemdNotifier()
    private let observer: DaemonObserver
    private let monitor: ProgressMonitor
    /// A failed notification is logged once, not on every tick.
    private let reportedFailure = Atomic<Bool>(false)

    init?(observer: DaemonObserver, monitor: ProgressMonitor) {
        guard notifier.isListening else { return nil }
        self.observer = observer
        self.monitor = monitor
    }

    func run() async {
        let watchdogInterval = notifier.watchdogInterval
        let tick = min(.seconds(1), watchdogInterval ?? .seconds(1))
        await observer.routing()
        var status = observer.status.summary()
        notify { try notifier.ready(status: status) }
        let clock = ContinuousClock()
        var nextPing = clock.now
        var reportedStalls: [String] = []
        while !Task.isCancelled {
            let now = observer.status.summary()
            if now != status {
                status = now
                notify { try notifier.status(status) }
            }
            if let watchdogInterval, clock.now >= nextPing {
                let stalled = monitor.stalled
                if stalled.isEmpty { notify { try notifier.watchdog() } }
                reportedStalls = Self.report(stalled, after: reportedStalls)
                nextPing = clock.now + watchdogInterval
            }
            do { try await Task.sleep(for: tick) } catch { break }
        }
        notify { try notifier.stopping() }
    }

    /// A reload began: systemd shows the unit `reloading` until `reloaded()`.
    func reloading() { notify { try notifier.reloading() } }

    /// The reload ended (the new config runs, or the old one was kept).
    func reloaded() { notify { try notifier.ready(status: observer.status.summary()) } }

    /// Logs a change in what is stalled: the watchdog is withheld, so systemd restarts the daemon.
    private static func report(_ stalled: [ProgressMonitor.Report], after reported: [String]) -> [String] {
        let parts = stalled.map(\.part).sorted()
        guard parts != reported else { return reported }
        if let first = stalled.first {
            Log.error(
                "\(first.part) made no progress for \(first.silent) (it may take \(first.allowance)); "
                    + "the systemd watchdog is no longer fed, so systemd restarts tagrouter",
                JSONObject(["stalled": .array(parts.map(JSONValue.string))]))
        } else {
            Log.info("every reader makes progress again; the systemd watchdog is fed", JSONObject())
        }
        return parts
    }

    private func notify(_ send: () throws -> Void) {
        do {
            try send()
        } catch {
            guard !reportedFailure.exchange(true, ordering: .relaxed) else { return }
            Log.warning("systemd did not get a notification; carrying on", JSONObject(["error": .string("\(error)")]))
        }
    }
}

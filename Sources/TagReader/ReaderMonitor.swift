import FoundationEssentials
import Glibc
import Lifecycle
import Synchronization
import SystemKit

/// Watches a set of reader threads from a thread of its own: checks their
/// watchdogs once a second and, once asked to stop them, repeats the stop every
/// 100 ms until they have all ended (`ended` opens) — a stop that lands just before a thread enters its
/// next libnfc call is lost (libnfc clears its abort flag when a command starts).
/// Not on Dispatch or the Swift concurrency pool: busy or blocked work elsewhere
/// can starve those (seen on 2 cores under the full test suite), and a stalled
/// reader must still be reopened then.
final class ReaderMonitor: Sendable {
    private let threads: [any ReaderThread]
    private let stopping = Atomic<Bool>(false)
    private let ended: Latch

    init(_ threads: [any ReaderThread], until ended: Latch) {
        self.threads = threads
        self.ended = ended
    }

    func start() {
        DedicatedThread.start(name: "tagrouter reader monitor") { [self] in watch() }
    }

    /// Stops every reader now and keeps repeating it.
    func stopReaders() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        for thread in threads { thread.stop() }
    }

    private func watch() {
        var ticks = 0
        while !ended.isOpen {
            usleep(100_000)
            ticks += 1
            if stopping.load(ordering: .sequentiallyConsistent) {
                for thread in threads { thread.stop() }
            } else if ticks % 10 == 0 {
                for thread in threads { thread.checkWatchdog() }
            }
        }
    }
}

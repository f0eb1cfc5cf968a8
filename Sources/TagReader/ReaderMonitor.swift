import FoundationEssentials
import Glibc
import Synchronization
import SystemKit

/// Watches a set of reader threads from a thread of its own: checks their
/// watchdogs once a second and, once asked to stop them, repeats the stop every
/// 100 ms until `finish()` — a stop that lands just before a thread enters its
/// next libnfc call is lost (libnfc clears its abort flag when a command starts).
/// Not on Dispatch or the Swift concurrency pool: busy or blocked work elsewhere
/// can starve those (seen on 2 cores under the full test suite), and a stalled
/// reader must still be reopened then.
final class ReaderMonitor: Sendable {
    private let threads: [any ReaderThread]
    private let stopping = Atomic<Bool>(false)
    private let finished = Atomic<Bool>(false)

    init(_ threads: [any ReaderThread]) { self.threads = threads }

    func start() {
        DedicatedThread.start(name: "tagrouter reader monitor") { [self] in watch() }
    }

    /// Stops every reader now and keeps repeating it.
    func stopReaders() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        for thread in threads { thread.stop() }
    }

    /// The readers have ended: the monitor's thread ends too.
    func finish() { finished.store(true, ordering: .sequentiallyConsistent) }

    private func watch() {
        var ticks = 0
        while !finished.load(ordering: .sequentiallyConsistent) {
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

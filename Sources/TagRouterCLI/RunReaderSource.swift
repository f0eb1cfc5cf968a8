import Synchronization
import TagCore
import TagReader

/// The configured readers as the daemon's source: a `ReaderService` offering
/// its events to the buffer (a reader never waits: a full buffer drops its
/// oldest). `reconfigure` restarts the readers for a reloaded `readers:` list.
final class ReaderSource: Service {
    private let buffer: EventBuffer
    /// The readers to run, and the latch that ends the current run when they change.
    private let current: Mutex<(readers: [ReaderConfig], changed: Latch)>

    init(_ readers: [ReaderConfig], buffer: EventBuffer) {
        self.buffer = buffer
        current = Mutex((readers, Latch()))
    }

    /// Restarts the readers when `readers` differs from the running list.
    func reconfigure(_ readers: [ReaderConfig]) {
        let changed = current.withLock { current -> Latch? in
            guard current.readers != readers else { return nil }
            defer { current = (readers, Latch()) }
            return current.changed
        }
        changed?.open()
    }

    func run() async throws {
        var first = true
        while !Task.isCancelled {
            let (readers, changed) = current.withLock { $0 }
            if !first { Log.info("readers restarted for the new config") }
            first = false
            let service = ReaderService(readers: readers, emit: buffer.offer)
            try await changed.cancelling { await service.run() }
        }
    }
}

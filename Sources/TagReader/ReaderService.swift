import Synchronization
import TagCore

/// Every configured reader as one service: `run()` starts one thread per reader
/// (libnfc, or PC/SC for a `pcsc:` device),
/// checks their watchdogs each second, and on cancellation stops the threads and
/// waits for them to end. Readers are supervised: a missing or lost device is
/// waited for and reopened, never ending the service.
public struct ReaderService: Service {
    public let readers: [ReaderConfig]
    private let emit: @Sendable (TagEvent) -> Void

    /// `emit` receives every reader's events, in the order they happened per
    /// reader, on the readers' threads; it must not block (the daemon's buffer
    /// drops the oldest instead).
    public init(readers: [ReaderConfig], emit: @escaping @Sendable (TagEvent) -> Void) {
        self.readers = readers
        self.emit = emit
    }

    public func run() async {
        let running = Atomic<Int>(readers.count)
        let allEnded = Latch()
        if readers.isEmpty { allEnded.open() }
        let threads = readers.map { config -> any ReaderThread in
            let finished: @Sendable () -> Void = {
                if running.subtract(1, ordering: .sequentiallyConsistent).newValue == 0 { allEnded.open() }
            }
            return PCSCDevice.names(config.device)
                ? PCSCReader(config: config, emit: emit, finished: finished)
                : LibNFCReader(config: config, emit: emit, finished: finished)
        }
        for thread in threads { thread.start() }
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            for thread in threads { thread.checkWatchdog() }
        }
        for thread in threads { thread.stop() }
        await allEnded.waitIgnoringCancellation()
    }
}

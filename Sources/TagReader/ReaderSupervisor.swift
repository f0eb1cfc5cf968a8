import Synchronization
import TagCore

/// Watches every configured reader, each on its own thread, and merges their
/// events into one stream — what the daemon's router consumes and what
/// `tagrouter read`/`watch` print. Readers are supervised: a missing or lost
/// device is waited for and reopened, never ending the stream. The stream ends
/// after `stop()` (or when its consumer goes away).
public final class ReaderSupervisor: Sendable {
    /// Every reader's events, in the order they happened per reader.
    public let events: AsyncStream<TagEvent>
    private let readers: [LibNFCReader]
    private let watchdog: Task<Void, Never>

    /// Starts one thread per reader at once. `buffer` bounds the events held for a
    /// slow consumer; past it the oldest are dropped (and logged).
    public init(readers configs: [ReaderConfig], buffer: Int = 1024) {
        let (stream, continuation) = AsyncStream.makeStream(of: TagEvent.self, bufferingPolicy: .bufferingNewest(buffer))
        events = stream
        let running = Atomic<Int>(configs.count)
        let emit: @Sendable (TagEvent) -> Void = { event in
            if case .dropped(let old) = continuation.yield(event) {
                Log.warning("event buffer full; dropped the oldest event", JSONObject(["event": .string(old.kind.rawValue), "reader": .string(old.reader)]))
            }
        }
        let finished: @Sendable () -> Void = {
            if running.subtract(1, ordering: .sequentiallyConsistent).newValue == 0 { continuation.finish() }
        }
        let readers = configs.map { LibNFCReader(config: $0, emit: emit, finished: finished) }
        self.readers = readers
        watchdog = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                for reader in readers { reader.checkWatchdog() }
            }
        }
        continuation.onTermination = { _ in
            for reader in readers { reader.stop() }
        }
        if configs.isEmpty { continuation.finish() }
        for reader in readers { reader.start() }
    }

    /// Stops every reader; `events` finishes once their threads have ended.
    public func stop() {
        watchdog.cancel()
        for reader in readers { reader.stop() }
    }

    deinit { stop() }
}

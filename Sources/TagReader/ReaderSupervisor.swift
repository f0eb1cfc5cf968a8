import Lifecycle
import OrderedJSON
import SystemKit
import TagCore
import TagRuntime

/// The configured readers as one stream of events, for commands that print
/// events (`tagrouter read`/`watch`) and for tests: their threads
/// (`ReaderThreads`), started at once, no task. The stream ends after `stop()`
/// (or when the supervisor goes away), once the reader threads have ended.
public final class ReaderSupervisor: Sendable {
    /// Every reader's events, in the order they happened per reader.
    public let events: BoundedQueue<TagEvent>
    private let threads: ReaderThreads

    /// Starts one thread per reader at once. `buffer` bounds the events held for a
    /// slow consumer; past it the oldest are dropped (and logged).
    /// `jobs`: where the readers find read and write jobs (tests of the daemon's write path).
    /// `feedback`: a board whose moments the readers show (tests of the readers' LEDs).
    /// `drivers`: the reader kinds the devices are looked up in.
    public init(readers configs: [ReaderConfig], drivers: ReaderDrivers, buffer: Int = 1024, jobs: ReaderJobBoard? = nil, feedback: FeedbackBoard? = nil) {
        let events = BoundedQueue<TagEvent>(capacity: buffer)
        self.events = events
        threads = ReaderThreads(readers: configs, drivers: drivers, jobs: jobs, feedback: feedback, emit: { event in
            if let old = events.push(event), old.id != event.id {
                Log.warning("event buffer full; dropped the oldest event", JSONObject(["event": .string(old.kind.rawValue), "reader": .string(old.reader)]))
            }
        }, whenEnded: { events.finish() })
    }

    /// Stops every reader; `events` finishes once their threads have ended.
    public func stop() { threads.stop() }

    deinit { stop() }
}

import Lifecycle
import TagCore
import TagRuntime

/// Every configured reader as one service: `run()` starts one thread per reader
/// (made by the driver its device belongs to),
/// checks their watchdogs each second, and on cancellation stops the threads and
/// waits for them to end. Readers are supervised: a missing or lost device is
/// waited for and reopened; the service ends by itself only when every reader
/// gave up on a device another process holds (`if_busy: exit`).
public struct ReaderService: Service {
    public let readers: [ReaderConfig]
    private let drivers: ReaderDrivers
    private let present: [String: [TagEvent]]
    private let jobs: ReaderJobBoard?
    private let feedback: FeedbackBoard?
    private let emit: @Sendable (TagEvent) -> Void
    private let monitor: ProgressMonitor?

    /// `emit` receives every reader's events, in the order they happened per
    /// reader, on the readers' threads; it must not block (the daemon's buffer
    /// drops the oldest instead). `present`: per reader name, the arrivals of tags an earlier
    /// run reported lying on it and did not remove — they do not arrive again.
    /// `jobs`: where each reader finds the read and write jobs waiting for its tags.
    /// `feedback`: where the router tells the readers how their taps ended (the daemon's board).
    /// `monitor`: told how long each reader thread has gone without progress, while it runs.
    public init(
        readers: [ReaderConfig], drivers: ReaderDrivers, present: [String: [TagEvent]] = [:], jobs: ReaderJobBoard? = nil,
        feedback: FeedbackBoard? = nil, monitor: ProgressMonitor? = nil, emit: @escaping @Sendable (TagEvent) -> Void
    ) {
        self.readers = readers
        self.drivers = drivers
        self.present = present
        self.jobs = jobs
        self.feedback = feedback
        self.monitor = monitor
        self.emit = emit
    }

    public func run() async {
        let threads = ReaderThreads(readers: readers, drivers: drivers, present: present, jobs: jobs, feedback: feedback, emit: emit)
        let registration = monitor?.register { threads.progress }
        defer { if let registration { monitor?.unregister(registration) } }
        // Readers end by themselves only when told to give up (`if_busy: exit`).
        await threads.ended.wait()
        threads.stop()
        await threads.ended.waitIgnoringCancellation()
    }
}

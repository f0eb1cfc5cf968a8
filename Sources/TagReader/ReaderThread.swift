import Lifecycle
import TagCore

/// One configured reader's dedicated thread, whichever driver made it
/// (`ReaderDriver.reader`): `ReaderService` starts it, checks its watchdog about
/// once a second, and stops it. It reports its end through the `finished`
/// callback it was made with.
public protocol ReaderThread: Sendable {
    var config: ReaderConfig { get }
    /// Starts the thread; called once.
    func start()
    /// Asks the thread to end soon: wakes it from a sleep and aborts its blocking call.
    func stop()
    /// Aborts a call that has made no progress for the reader's `watchdog`, where that means a stall.
    func checkWatchdog()
    /// How long the thread has gone without progress and may go, for the systemd
    /// watchdog; nil for a thread that waits without end by design.
    var progress: ProgressMonitor.Report? { get }
    /// Shows a tap's outcome on the reader itself (its LEDs and buzzer) while it can, else drops it; returns at
    /// once (it queues). The readers' owner calls it for the moments posted to its `FeedbackBoard` under this
    /// reader's name, for a reader whose driver `showsOutcomes`. By default it shows nothing.
    func show(_ moment: ReaderFeedback.Moment)
}

extension ReaderThread {
    public func show(_ moment: ReaderFeedback.Moment) {}
}

import Lifecycle
import Synchronization
import TagCore
import TagRuntime

/// The dedicated threads of a set of readers, started at once: one per reader,
/// made by the driver its device belongs to, watched by a `ReaderMonitor`.
/// `stop()` asks them to end; `ended` opens once every one has (also when they
/// gave up by themselves, `if_busy: exit`), and `whenEnded` is called then.
/// While they run, the moments posted to `feedback` for a reader whose driver
/// shows outcomes go to that reader's thread.
/// Tasks wait on `ended`; a thread-side owner (`ReaderSupervisor`) needs no task.
final class ReaderThreads: Sendable {
    /// Open once every reader thread has ended.
    let ended: Latch
    private let threads: [any ReaderThread]
    private let monitor: ReaderMonitor

    init(
        readers: [ReaderConfig], drivers: ReaderDrivers, present: [String: [TagEvent]] = [:], jobs: ReaderJobBoard? = nil,
        feedback: FeedbackBoard? = nil, emit: @escaping @Sendable (TagEvent) -> Void, whenEnded: @escaping @Sendable () -> Void = {}
    ) {
        let ended = Latch()
        let running = Atomic<Int>(readers.count)
        let registrations = Mutex<[(reader: String, id: Int)]>([])
        let finished: @Sendable () -> Void = {
            guard running.subtract(1, ordering: .sequentiallyConsistent).newValue == 0 else { return }
            for registration in registrations.withLock({ $0 }) { feedback?.unregister(reader: registration.reader, id: registration.id) }
            ended.open()
            whenEnded()
        }
        let threads = readers.map { config -> any ReaderThread in
            drivers.driver(for: config.device).reader(
                config, present: present[config.name] ?? [], jobs: jobs?.queue(for: config), emit: emit, finished: finished)
        }
        if let feedback {
            // Registered before any thread starts, so none has ended yet.
            registrations.withLock { registrations in
                for thread in threads where drivers.driver(for: thread.config.device).showsOutcomes(thread.config) {
                    registrations.append((thread.config.name, feedback.register(reader: thread.config.name) { thread.show($0) }))
                }
            }
        }
        self.threads = threads
        self.ended = ended
        monitor = ReaderMonitor(threads, until: ended)
        if readers.isEmpty {
            ended.open()
            whenEnded()
        }
        for thread in threads { thread.start() }
        monitor.start()
    }

    /// How long each thread has gone without progress and may go (see `ReaderThread.progress`).
    var progress: [ProgressMonitor.Report] { threads.compactMap(\.progress) }

    /// Asks every reader to end now, and keeps asking until they have.
    func stop() { monitor.stopReaders() }
}

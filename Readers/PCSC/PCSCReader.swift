import Dispatch
import FoundationEssentials
import Lifecycle
import OrderedJSON
import Synchronization
import SystemKit
import TagCore
import TagReader

/// One PC/SC reader: a dedicated thread blocks in `SCardGetStatusChange` (no
/// CPU while the field is empty or a card lies still), reads an arriving card
/// through its APDUs, runs the scan model and yields `TagEvent`s — the events
/// a libnfc reader yields. It never gives up: pcscd or the reader missing is
/// waited for (logged once, backoff), a lost reader is found again.
/// `stop()` ends the wait with `SCardCancel`.
final class PCSCReader: ReaderThread {
    let config: ReaderConfig
    private let device: PCSCDevice
    private let emit: @Sendable (TagEvent) -> Void
    private let finished: @Sendable () -> Void
    private let stopping = Atomic<Bool>(false)
    private let wakeUp = DispatchSemaphore(value: 0)
    private let currentContext = Mutex<PCSCContext?>(nil)
    /// The open session's LEDs and buzzer; nil while no reader is open.
    private let currentFeedback = Mutex<PCSCFeedback?>(nil)
    private let jobs: TagJobQueue?

    init(config: ReaderConfig, jobs: TagJobQueue? = nil, emit: @escaping @Sendable (TagEvent) -> Void, finished: @escaping @Sendable () -> Void) {
        self.config = config
        device = PCSCDevice(config.device) ?? .auto
        self.jobs = jobs
        self.emit = emit
        self.finished = finished
    }

    func start() {
        DedicatedThread.start(name: "pcsc reader \(config.name)") { [self] in
            run()
            finished()
        }
    }

    func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        wakeUp.signal()
        currentContext.withLock { $0?.cancel() }
    }

    /// Waiting for a card without end is what a PC/SC reader does: no stall to detect.
    func checkWatchdog() {}

    /// Blocked in `SCardGetStatusChange` until a card comes is how this thread waits: never a stall.
    var progress: ProgressMonitor.Report? { nil }

    func show(_ moment: ReaderFeedback.Moment) { currentFeedback.withLock { $0 }?.post(moment) }

    private var isStopping: Bool { stopping.load(ordering: .sequentiallyConsistent) }

    private func pause(_ duration: Duration) {
        _ = wakeUp.wait(timeout: .now() + .milliseconds(Int(duration.milliseconds)))
    }

    // MARK: - Supervision

    private func run() {
        var backoff = Backoff(initial: .milliseconds(250), maximum: .seconds(5))
        var report = DeviceWaitReport(reader: config.name, device: config.device)
        while !isStopping {
            let context: PCSCContext
            let readers: [String]
            do {
                context = try PCSCContext()
                readers = try context.readers()
            } catch {
                let refused = error.refusedAction != nil
                report.waiting(refused ? "pcscd refused this reader's user through polkit" : "pcscd not reachable", detail: error.description, emit: emit)
                pause(backoff.next())
                continue
            }
            guard let reader = device.pick(from: readers, in: context) else {
                report.waiting("reader '\(config.device)' not found", detail: "pcscd has: " + (readers.isEmpty ? "no readers" : readers.joined(separator: ", ")), emit: emit)
                pause(backoff.next())
                continue
            }
            report.opened()
            currentContext.withLock { $0 = context }
            if isStopping { break }
            let end = session(context, reader: reader)
            currentContext.withLock { $0 = nil }
            if case .lost(let reason) = end, !isStopping {
                Log.warning("reader lost; reopening", JSONObject(["reader": .string(config.name), "error": .string(reason)]))
                emit(TagEvent(kind: .readerDisconnected, reader: config.name, message: reason))
                backoff.reset()
                pause(backoff.next())
            }
        }
    }

    private enum SessionEnd {
        case stopped
        case lost(String)
    }

    /// Watches `reader` until it is lost or the reader stops.
    private func session(_ context: PCSCContext, reader: String) -> SessionEnd {
        emit(TagEvent(kind: .readerConnected, reader: config.name, message: "\(reader) (PC/SC)"))
        let feedback = PCSCFeedback(config: config, readerName: reader)
        currentFeedback.withLock { $0 = feedback }
        defer {
            currentFeedback.withLock { $0 = nil }
            feedback?.stop()
        }
        // The arrival shows at once, before the event is routed.
        let forward = self.emit
        let emit: @Sendable (TagEvent) -> Void = { event in
            if event.kind == .tagArrived { feedback?.post(.arrival) }
            forward(event)
        }
        var scan = FieldScan(config: config, transport: PCSCField(config: config, context: context, reader: reader), jobs: jobs)
        while !isStopping {
            do {
                try scan.step(emit: emit)
            } catch {
                guard case .lost(let reason) = error else { return .stopped }
                for event in scan.readerLost() { emit(event) }
                return .lost(reason)
            }
        }
        return .stopped
    }
}

import CNFC
import Dispatch
import FoundationEssentials
import Lifecycle
import OrderedJSON
import Synchronization
import SystemKit
import TagCore
import TagReader

/// One reader: a dedicated thread makes the blocking libnfc calls, runs the scan
/// model and yields `TagEvent`s. It never gives up: a missing device is waited
/// for (with backoff, logged once), a lost one is reopened, protocol errors are
/// retried in place. `stop()` ends the thread within one libnfc call.
final class LibNFCReader: ReaderThread {
    let config: ReaderConfig
    private let emit: @Sendable (TagEvent) -> Void
    private let finished: @Sendable () -> Void
    private let stopping = Atomic<Bool>(false)
    private let wakeUp = DispatchSemaphore(value: 0)
    private let currentDevice = Mutex<AbortHandle?>(nil)
    /// Milliseconds on the monotonic clock when the thread last made progress (only the thread sets it).
    private let lastProgress = Atomic<Int64>(0)
    /// Milliseconds on the monotonic clock when the watchdog last aborted the device.
    private let lastAbort = Atomic<Int64>(0)
    private let watchdogFired = Atomic<Bool>(false)
    /// Tags a previous reader reported lying here, for the first session only.
    private let handedOver: Mutex<[TagEvent]>
    /// The read and write jobs waiting for this reader's tags.
    private let jobs: TagJobQueue?

    /// Protocol errors in a row after which the device is reopened.
    static let protocolErrorLimit = 5
    /// How many times the chip is re-initialised after a protocol error before it counts as lost.
    static let recoveryAttempts = 3

    /// `present`: tags a previous reader of this device reported and did not remove (a reload changed its settings).
    init(
        config: ReaderConfig, present: [TagEvent] = [], jobs: TagJobQueue? = nil,
        emit: @escaping @Sendable (TagEvent) -> Void, finished: @escaping @Sendable () -> Void
    ) {
        self.config = config
        self.jobs = jobs
        handedOver = Mutex(present)
        self.emit = emit
        self.finished = finished
    }

    func start() {
        markProgress()
        DedicatedThread.start(name: "reader \(config.name)") { [self] in
            run()
            finished()
        }
    }

    /// Asks the thread to end: wakes it from a sleep and aborts its libnfc call.
    func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        wakeUp.signal()
        currentDevice.withLock { $0?.abort() }
    }

    /// Called about once a second by the supervisor: abandons a device that has made
    /// no progress for `config.watchdog` (aborts its call, cuts a serial line), so the
    /// thread reopens it.
    func checkWatchdog() {
        let now = Self.nowMs()
        let lastMove = max(lastProgress.load(ordering: .relaxed), lastAbort.load(ordering: .relaxed))
        guard now - lastMove > Int64(config.watchdog.milliseconds) else { return }
        lastAbort.store(now, ordering: .relaxed)
        currentDevice.withLock { device in
            guard let device else { return }  // waiting for a missing reader is not a stall
            watchdogFired.store(true, ordering: .sequentiallyConsistent)
            device.abandon()
        }
    }

    /// The thread may be silent for its own watchdog, the second until that is checked,
    /// the longest pause before reopening, and a second to spare; longer means it is
    /// wedged where aborting the device does not reach.
    var progress: ProgressMonitor.Report? {
        let silent = Duration.milliseconds(Self.nowMs() - lastProgress.load(ordering: .relaxed))
        return ProgressMonitor.Report(
            part: "reader \(config.name)", silent: silent, allowance: config.watchdog + .seconds(2) + Backoff.readerReopen.maximum)
    }

    private var isStopping: Bool { stopping.load(ordering: .sequentiallyConsistent) }

    private func markProgress() { lastProgress.store(Self.nowMs(), ordering: .relaxed) }

    private static let origin = ContinuousClock.now

    private static func nowMs() -> Int64 { (ContinuousClock.now - origin).milliseconds }

    /// Sleeps for `duration` unless `stop()` comes first.
    private func pause(_ duration: Duration) {
        _ = wakeUp.wait(timeout: .now() + .milliseconds(Int(duration.milliseconds)))
    }

    // MARK: - Supervision

    /// Said when the device does not open: what is waited for; `notFoundHint`, the next steps (in the log).
    static func notFound(_ device: String) -> String {
        device == "auto" ? "no reader found" : "reader '\(device)' not found"
    }

    static let notFoundHint = " (`tagrouter devices` says why; `tagrouter demo` shows tagrouter at work "
        + "on a simulated reader, and `tagrouter simulate` runs one for your own config)"

    private func run() {
        var backoff = Backoff.readerReopen
        var report = DeviceWaitReport(reader: config.name, device: config.device)
        while !isStopping {
            markProgress()
            guard let context = NFCContext.shared else {
                emit(TagEvent(kind: .readerError, reader: config.name, message: "libnfc could not start (nfc_init failed)"))
                pause(backoff.next())
                continue
            }
            let device: NFCDevice
            switch context.open(config.device) {
            case .success(let opened):
                device = opened
            case .failure(.notOpened):
                // A sandbox that hides the device is the cause to name, not the hardware.
                if let refusal = LibNFCDriver.deviceNode(config.device).flatMap({ DeviceSandbox.refusal(of: $0) }) {
                    report.waiting("reader '\(config.device)': " + refusal, emit: emit)
                } else {
                    report.waiting(Self.notFound(config.device), hint: Self.notFoundHint, emit: emit)
                }
                pause(backoff.next())
                continue
            case .failure(.busy(let holder)):
                if config.ifBusy == .exit {
                    emit(TagEvent(kind: .readerError, reader: config.name, message: holder.description))
                    return
                }
                report.waiting(holder.description, emit: emit)
                pause(backoff.next())
                continue
            }
            report.opened()
            currentDevice.withLock { $0 = device.abortHandle }
            let end = session(on: device)
            currentDevice.withLock { $0 = nil }
            switch end {
            case .lost(let reason) where !isStopping:
                Log.warning("reader lost; reopening", JSONObject(["reader": .string(config.name), "error": .string(reason)]))
                emit(TagEvent(kind: .readerDisconnected, reader: config.name, message: reason))
                backoff.reset()
                pause(backoff.next())
            case .unusable:
                pause(backoff.next())
            case .lost, .stopped:
                break
            }
        }
    }

    /// How a session on an open device ended.
    private enum SessionEnd {
        /// `stop()` was called.
        case stopped
        /// The device failed (gone, stalled, or erring again and again); it is reopened.
        case lost(String)
        /// The device opened but could not be put in reader mode (`reader.error` said why).
        case unusable
    }

    /// Runs the scan loop on an open device until it is lost or the reader stops.
    private func session(on device: NFCDevice) -> SessionEnd {
        let adopted = handedOver.withLock { present in
            defer { present = [] }
            return present
        }
        var scan = FieldScan(config: config, transport: LibNFCField(config: config, device: device, pause: pause), jobs: jobs, adopting: adopted)
        do {
            try Self.prepare(device)
        } catch {
            emit(TagEvent(kind: .readerError, reader: config.name, message: "\(device.connstring): could not initialise the reader: \(error)"))
            return .unusable
        }
        emit(TagEvent(kind: .readerConnected, reader: config.name, message: "\(device.name) (\(device.connstring))"))
        var protocolErrors = 0
        while !isStopping {
            markProgress()
            do {
                try scan.step(emit: emit)
                protocolErrors = 0
            } catch {
                let watchdog = watchdogFired.exchange(false, ordering: .sequentiallyConsistent)
                if isStopping { return .stopped }
                protocolErrors += 1
                // A garbled frame (libnfc reports a bad checksum as NFC_EIO too) is
                // retried in place after re-initialising the chip; a device that is
                // really gone fails that as well and is reopened.
                let unrecoverable = watchdog || error.code == NFC_EOPABORTED || protocolErrors > Self.protocolErrorLimit
                if let failure = unrecoverable ? error : recover(device, &scan) {
                    for event in scan.readerLost() { emit(event) }
                    return .lost(watchdog ? "watchdog: no answer for \(config.watchdog)" : failure.description)
                }
                Log.debug("protocol error; retrying", JSONObject(["reader": .string(config.name), "error": .string(error.description)]))
            }
        }
        return .stopped
    }

    /// Initiator mode, and selections that try once instead of waiting for a tag.
    private static func prepare(_ device: NFCDevice) throws(NFCError) {
        try device.initiatorInit()
        try device.setProperty(NP_INFINITE_SELECT, false, "disable infinite select")
    }

    /// Re-initialises the chip after an error; the error when the device does not
    /// answer that either (it says best why the device is lost). It tries up to
    /// `recoveryAttempts` times: when the error was an answer that came too late (the
    /// chip's ACK not read within libnfc's timeout: a simulated chip on a starved
    /// host), that answer arrives during the first try and fails it, and libnfc drops
    /// what waits on the line before the next.
    private func recover(_ device: NFCDevice, _ scan: inout FieldScan<LibNFCField>) -> NFCError? {
        device.lost = nil
        scan.transport.chipWasReset()
        var failure: NFCError?
        for _ in 1...Self.recoveryAttempts {
            do {
                try Self.prepare(device)
                return nil
            } catch {
                failure = error
            }
        }
        return failure
    }
}

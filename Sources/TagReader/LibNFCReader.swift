import CNFC
import Dispatch
import Foundation
import Synchronization
import TagCore

/// One reader: a dedicated thread makes the blocking libnfc calls, runs the scan
/// model and yields `TagEvent`s. It never gives up: a missing device is waited
/// for (with backoff, logged once), a lost one is reopened, protocol errors are
/// retried in place. `stop()` ends the thread within one libnfc call.
final class LibNFCReader: Sendable {
    let config: ReaderConfig
    private let emit: @Sendable (TagEvent) -> Void
    private let finished: @Sendable () -> Void
    private let stopping = Atomic<Bool>(false)
    private let wakeUp = DispatchSemaphore(value: 0)
    private let currentDevice = Mutex<AbortHandle?>(nil)
    /// Milliseconds on the monotonic clock when the thread last made progress.
    private let lastProgress = Atomic<Int64>(0)
    private let watchdogFired = Atomic<Bool>(false)

    /// How many InAutoPoll rounds one blocking call covers (× 150 ms × 2 target types).
    static let autoPollRounds: UInt8 = 10
    /// Protocol errors in a row after which the device is reopened.
    static let protocolErrorLimit = 5

    init(config: ReaderConfig, emit: @escaping @Sendable (TagEvent) -> Void, finished: @escaping @Sendable () -> Void) {
        self.config = config
        self.emit = emit
        self.finished = finished
    }

    func start() {
        markProgress()
        let thread = Thread { [self] in
            run()
            finished()
        }
        thread.name = "reader \(config.name)"
        thread.start()
    }

    /// Asks the thread to end: wakes it from a sleep and aborts its libnfc call.
    func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        wakeUp.signal()
        currentDevice.withLock { $0?.abort() }
    }

    /// Called about once a second by the supervisor: aborts a device that has made
    /// no progress for `config.watchdog`, so the thread reopens it.
    func checkWatchdog() {
        guard Self.nowMs() - lastProgress.load(ordering: .relaxed) > Int64(config.watchdog.milliseconds) else { return }
        watchdogFired.store(true, ordering: .sequentiallyConsistent)
        markProgress()
        currentDevice.withLock { $0?.abort() }
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

    private func run() {
        var backoff = Backoff()
        var reportedMissing = false
        while !isStopping {
            markProgress()
            guard let context = NFCContext() else {
                emit(TagEvent(kind: .readerError, reader: config.name, message: "libnfc could not start (nfc_init failed)"))
                pause(backoff.next())
                continue
            }
            guard let device = context.open(config.device) else {
                if !reportedMissing {
                    Log.warning("reader not found; waiting for it", JSONObject(["reader": .string(config.name), "device": .string(config.device)]))
                    reportedMissing = true
                }
                pause(backoff.next())
                continue
            }
            reportedMissing = false
            backoff.reset()
            currentDevice.withLock { $0 = device.abortHandle }
            let lost = session(on: device)
            currentDevice.withLock { $0 = nil }
            if let lost, !isStopping {
                Log.warning("reader lost; reopening", JSONObject(["reader": .string(config.name), "error": .string(lost)]))
                emit(TagEvent(kind: .readerDisconnected, reader: config.name, message: lost))
                pause(backoff.next())
            }
        }
    }

    /// Runs the scan loop on an open device; returns why the device was lost, or nil when stopping.
    private func session(on device: NFCDevice) -> String? {
        var scan = ScanSession(config: config, device: device)
        do {
            try device.initiatorInit()
            try device.setProperty(NP_INFINITE_SELECT, false, "disable infinite select")
        } catch {
            emit(TagEvent(kind: .readerError, reader: config.name, message: "\(device.connstring): \(error)"))
            return "could not initialise the reader: \(error)"
        }
        emit(TagEvent(kind: .readerConnected, reader: config.name, message: "\(device.name) (\(device.connstring))"))
        var protocolErrors = 0
        while !isStopping {
            markProgress()
            do {
                try scan.step(emit: emit)
                protocolErrors = 0
                if let wait = scan.pauseBeforeNextStep { pause(wait) }
            } catch {
                let watchdog = watchdogFired.exchange(false, ordering: .sequentiallyConsistent)
                if isStopping { return nil }
                if watchdog || error.isDeviceLost || protocolErrors >= Self.protocolErrorLimit {
                    for event in scan.readerLost() { emit(event) }
                    return watchdog ? "watchdog: no answer for \(config.watchdog)" : error.description
                }
                protocolErrors += 1
                Log.debug("protocol error; retrying", JSONObject(["reader": .string(config.name), "error": .string(error.description)]))
            }
        }
        return nil
    }
}

extension Duration {
    /// Whole milliseconds (truncated).
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}

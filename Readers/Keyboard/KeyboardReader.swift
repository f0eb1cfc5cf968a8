import Glibc
import Lifecycle
import OrderedJSON
import Synchronization
import SystemKit
import TagCore
import TagReader

/// One keyboard-wedge reader: a dedicated thread opens and grabs its input
/// device, runs the shared scan loop over it (`KeyboardField`: `poll(2)` for keys,
/// no CPU between cards) and yields `TagEvent`s. A device that is missing, not
/// readable or grabbed by another program is said once (`reader.waiting`) and
/// waited for; an unplugged one is opened again when it returns. `stop()` wakes
/// the thread through a pipe.
final class KeyboardReader: ReaderThread {
    let config: ReaderConfig
    private let path: String
    private let settings: KeyboardSettings
    private let jobs: TagJobQueue?
    /// Tags a previous reader reported lying here, for the first session only.
    private let handedOver: Mutex<[TagEvent]>
    private let emit: @Sendable (TagEvent) -> Void
    private let finished: @Sendable () -> Void
    /// Opens the device and grabs it (tests open a FIFO instead: nothing here can be grabbed).
    private let open: @Sendable (String) throws(InputDevice.Failure) -> InputDevice
    private let stopping = Atomic<Bool>(false)
    /// `stop()` writes a byte to the second descriptor; every wait also watches the first.
    private let wake: (read: Int32, write: Int32)

    init(
        config: ReaderConfig, path: String, present: [TagEvent], jobs: TagJobQueue?, emit: @escaping @Sendable (TagEvent) -> Void,
        finished: @escaping @Sendable () -> Void, open: @escaping @Sendable (String) throws(InputDevice.Failure) -> InputDevice = InputDevice.init(path:)
    ) {
        self.open = open
        self.config = config
        self.path = path
        settings = config.driverSettings.value(as: KeyboardSettings.self) ?? KeyboardSettings()
        self.jobs = jobs
        handedOver = Mutex(present)
        self.emit = emit
        self.finished = finished
        var descriptors: [Int32] = [-1, -1]
        if pipe(&descriptors) == 0 {
            for descriptor in descriptors {
                _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
                _ = fcntl(descriptor, F_SETFL, O_NONBLOCK)
            }
        }
        wake = (descriptors[0], descriptors[1])
    }

    deinit {
        close(wake.read)
        close(wake.write)
    }

    func start() {
        DedicatedThread.start(name: "keyboard reader \(config.name)") { [self] in
            run()
            finished()
        }
    }

    func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
    }

    /// Waiting for the next card without end is what a keyboard reader does: no stall to detect.
    func checkWatchdog() {}

    var progress: ProgressMonitor.Report? { nil }

    private var isStopping: Bool { stopping.load(ordering: .sequentiallyConsistent) }

    /// Sleeps for `duration` unless `stop()` comes first.
    private func pause(_ duration: Duration) {
        var descriptor = pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)
        _ = poll(&descriptor, 1, Int32(clamping: duration.milliseconds))
    }

    private func run() {
        var backoff = Backoff.readerReopen
        var report = DeviceWaitReport(reader: config.name, device: path)
        while !isStopping {
            let device: InputDevice
            do {
                device = try open(path)
            } catch {
                if case .grabbed = error, config.ifBusy == .exit {
                    emit(TagEvent(kind: .readerError, reader: config.name, message: error.description))
                    return
                }
                // A sandbox that refuses the node is the cause to name, not its permissions.
                let refusal = KeyboardDriver.deviceNode(config.device).flatMap { DeviceSandbox.refusal(of: $0) }
                report.waiting(refusal.map { "\(path): " + $0 } ?? error.description, emit: emit)
                pause(backoff.next())
                continue
            }
            report.opened()
            backoff.reset()
            emit(TagEvent(kind: .readerConnected, reader: config.name, message: "\(path) (keyboard input, grabbed)"))
            let lost = session(on: device)
            if let lost, !isStopping {
                Log.warning("reader lost; reopening", JSONObject(["reader": .string(config.name), "error": .string(lost)]))
                emit(TagEvent(kind: .readerDisconnected, reader: config.name, message: lost))
                pause(backoff.next())
            }
        }
    }

    /// Reads `device` until it is gone (returns why) or the reader stops (nil).
    private func session(on device: InputDevice) -> String? {
        let adopted = handedOver.withLock { present in
            defer { present = [] }
            return present
        }
        var scan = FieldScan(
            config: config, transport: KeyboardField(config: config, settings: settings, input: device.descriptor, wake: wake.read), jobs: jobs, adopting: adopted)
        while !isStopping {
            do {
                try scan.step(emit: emit)
            } catch {
                for event in scan.readerLost() { emit(event) }
                return error.reason
            }
        }
        return nil
    }
}

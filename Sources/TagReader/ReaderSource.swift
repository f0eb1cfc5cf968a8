import Lifecycle
import OrderedJSON
import Synchronization
import SystemKit
import TagCore
import TagRuntime

/// The configured readers as the daemon's source: one `ReaderService` per
/// reader, offering its events to the buffer (a reader never waits: a full
/// buffer drops its oldest). `reconfigure` applies a reloaded `readers:` list
/// reader by reader: an unchanged reader stays open untouched; a changed one is
/// stopped and started with its new settings, taking over the tags lying on it
/// (they do not arrive again); a removed one stops; a new one starts.
/// Read and write jobs reach the readers through `jobs`, a tap's outcome through `feedback`.
public final class ReaderSource: Service {
    private let buffer: EventBuffer
    private let drivers: ReaderDrivers
    public let jobs: ReaderJobBoard
    private let feedback: FeedbackBoard
    /// The readers to run, and the latch that wakes `run` when they change.
    private let wanted: Mutex<(readers: [ReaderConfig], changed: Latch)>
    /// Per reader, the tags it reported arriving and not yet removed.
    private let present = Mutex<[String: [TagEvent]]>([:])
    private let monitor: ProgressMonitor?
    private let arrived: (@Sendable (_ reader: String) -> Void)?

    /// `monitor`: told how long each reader thread has gone without progress (the systemd watchdog asks it);
    /// `arrived`: told of each tag's arrival at a reader, before it is routed (the host's sound).
    public init(
        _ readers: [ReaderConfig], drivers: ReaderDrivers, buffer: EventBuffer, jobs: ReaderJobBoard, feedback: FeedbackBoard,
        monitor: ProgressMonitor? = nil, arrived: (@Sendable (_ reader: String) -> Void)? = nil
    ) {
        self.buffer = buffer
        self.drivers = drivers
        self.jobs = jobs
        self.feedback = feedback
        self.monitor = monitor
        self.arrived = arrived
        wanted = Mutex((readers, Latch()))
    }

    /// Applies `readers` when it differs from the running list.
    public func reconfigure(_ readers: [ReaderConfig]) {
        let changed = wanted.withLock { wanted -> Latch? in
            guard wanted.readers != readers else { return nil }
            defer { wanted = (readers, Latch()) }
            return wanted.changed
        }
        changed?.open()
    }

    /// A reader running in the group: its settings, the latch that stops it, and the one that says it ended.
    private struct Running {
        let config: ReaderConfig
        let stop = Latch()
        let ended = Latch()
    }

    /// Runs the readers until cancelled or the graceful shutdown begins (a reader has nothing to finish).
    public func run() async throws { try await GracefulShutdown.cancelling { await self.runReaders() } }

    private func runReaders() async {
        // Discarding: a reader stopped by a reload leaves nothing behind while the daemon runs.
        await withDiscardingTaskGroup { group in
            var running: [String: Running] = [:]
            var first = true
            while !Task.isCancelled {
                let (readers, changed) = wanted.withLock { $0 }
                jobs.configure(readers)
                for (name, reader) in running where !readers.contains(reader.config) {
                    reader.stop.open()
                    await reader.ended.waitIgnoringCancellation()  // the device is free again before it is reopened
                    running[name] = nil
                    if !readers.contains(where: { $0.name == name }) { present.withLock { _ = $0.removeValue(forKey: name) } }
                }
                for config in readers where running[config.name] == nil {
                    let handover = first ? [] : present.withLock { $0[config.name] ?? [] }
                    if !first { Log.info("reader started with the new config", JSONObject(["reader": .string(config.name), "tags_taken_over": .int(Int64(handover.count))])) }
                    let reader = Running(config: config)
                    running[config.name] = reader
                    let service = ReaderService(
                        readers: [config], drivers: drivers, present: [config.name: handover], jobs: jobs, feedback: feedback, monitor: monitor, emit: offer)
                    group.addTask {
                        try? await reader.stop.cancelling { await service.run() }
                        reader.ended.open()
                    }
                }
                first = false
                await changed.wait()
            }
        }
    }

    /// Hands `event` to the buffer, keeping track of the tags lying on each reader.
    private func offer(_ event: TagEvent) {
        present.withLock { present in
            switch event.kind {
            case .tagArrived: if event.tag != nil { present[event.reader, default: []].append(event) }
            case .tagRemoved: present[event.reader]?.removeAll { $0.tag?.uid == event.tag?.uid }
            case .tagHeld, .tagTapped, .readerConnected, .readerDisconnected, .readerError, .readerWaiting: break
            }
        }
        if event.kind == .tagArrived { arrived?(event.reader) }
        buffer.offer(event)
    }
}

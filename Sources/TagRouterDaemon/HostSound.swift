import ChildProcess
import Lifecycle
import OrderedJSON
import Synchronization
import SystemKit
import TagCore
import TagRuntime

/// Plays each reader's `feedback.sound` files on this machine, for every
/// reader (libnfc ones, which have no LED or buzzer call, too): the outcome
/// moments come from the `FeedbackBoard`, a tag's arrival from the reader source
/// (`arrived(reader:)`), and `run` starts the player for each as a child
/// process with the reader's `timeout`.
///
/// At most one sound plays per reader: a newer moment stops the one playing
/// (its process group is terminated) and takes its place, so the outcome is
/// never late behind an arrival sound; while a player is being started only the
/// newest moment waiting per reader is kept. Asking only queues: neither the
/// readers nor the router ever wait on a player.
final class HostSound: Service {
    private struct State {
        var sounds: [String: FeedbackSound] = [:]
        var registrations: [String: Int] = [:]
        /// The newest moment waiting per reader.
        var waiting: [String: ReaderFeedback.Moment] = [:]
    }

    /// One player running for a reader.
    private final class Playing: Sendable {
        let child: ChildProcess
        let fields: JSONObject
        /// Set when a newer moment stopped it.
        let replaced = Atomic<Bool>(false)

        init(child: ChildProcess, fields: JSONObject) {
            self.child = child
            self.fields = fields
        }
    }

    /// How long a player has between `SIGTERM` and `SIGKILL`, when it is replaced or past its timeout.
    static let killGrace: Duration = .milliseconds(500)

    private let state = Mutex(State())
    private let board: FeedbackBoard
    private let wakes: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    init(_ readers: [ReaderConfig], board: FeedbackBoard) {
        self.board = board
        (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        reconfigure(readers)
    }

    deinit {
        for (reader, id) in state.withLock({ $0.registrations }) { board.unregister(reader: reader, id: id) }
    }

    /// Takes the sounds of `readers` (a reload): a reader whose sound went away stops getting moments.
    func reconfigure(_ readers: [ReaderConfig]) {
        let sounds = Dictionary(readers.compactMap { reader in reader.feedback.sound.map { (reader.name, $0) } }) { first, _ in first }
        let old = state.withLock { state -> [String: Int] in
            defer {
                state.sounds = sounds
                state.registrations = [:]
            }
            return state.registrations
        }
        for (reader, id) in old { board.unregister(reader: reader, id: id) }
        var registrations: [String: Int] = [:]
        for reader in sounds.keys {
            registrations[reader] = board.register(reader: reader) { [weak self] moment in self?.request(moment, reader: reader) }
        }
        state.withLock { $0.registrations = registrations }
    }

    /// A tag arrived at `reader`: its arrival sound, before routing.
    func arrived(reader: String) { request(.arrival, reader: reader) }

    private func request(_ moment: ReaderFeedback.Moment, reader: String) {
        let queued = state.withLock { state -> Bool in
            guard state.sounds[reader]?.files[moment] != nil else { return false }
            state.waiting[reader] = moment
            return true
        }
        if queued { wake.yield() }
    }

    func run() async {
        // Discarding: a sound that ended leaves nothing behind while the daemon runs.
        await withDiscardingTaskGroup { group in
            var playing: [String: Playing] = [:]
            for await _ in wakes {
                let due = state.withLock { state in
                    defer { state.waiting = [:] }
                    return state.waiting.compactMap { reader, moment in state.sounds[reader].map { (reader, moment, $0) } }
                }
                for (reader, moment, sound) in due {
                    if let current = playing.removeValue(forKey: reader), !current.child.hasExited {
                        current.replaced.store(true, ordering: .relaxed)
                        current.child.terminate()
                        _ = await current.child.termination()
                    }
                    guard let started = start(sound, moment: moment, reader: reader) else { continue }
                    playing[reader] = started
                    group.addTask { await Self.report(started) }
                }
            }
            // Cancelled: no sound outlives the daemon.
            for current in playing.values { current.child.terminate() }
        }
    }

    /// Starts the player for `moment`'s file; nil (logged) when it cannot be started.
    private func start(_ sound: FeedbackSound, moment: ReaderFeedback.Moment, reader: String) -> Playing? {
        guard let arguments = sound.command(for: moment) else { return nil }
        var fields = JSONObject([
            "reader": .string(reader), "moment": .string(moment.rawValue), "file": .string(sound.files[moment] ?? ""), "player": .string(sound.program),
        ])
        do throws(ChildProcessError) {
            let options = ChildOptions(stdout: .null, stderr: .tail, timeout: sound.timeout, killGrace: Self.killGrace, tailBytes: 1024, killsGroupOnExit: true)
            let child = try ChildProcess(ChildCommand(arguments), options: options)
            fields["pid"] = .int(Int64(child.pid))
            Log.debug("sound started", fields)
            return Playing(child: child, fields: fields)
        } catch {
            fields["error"] = .string(error.description)
            Log.warning("sound not played: the player could not be started", fields)
            return nil
        }
    }

    /// Logs how `playing` ended: played, cut short by a newer moment, stopped at its timeout, or failed with the player's words.
    private static func report(_ playing: Playing) async {
        let end = await playing.child.termination()
        var fields = playing.fields
        fields["status"] = .string(end.description)
        fields["duration_ms"] = .int(Int64(end.duration.components.seconds * 1000 + end.duration.components.attoseconds / 1_000_000_000_000_000))
        if end.succeeded {
            Log.debug("sound played", fields)
        } else if playing.replaced.load(ordering: .relaxed) {
            Log.debug("sound cut short by a newer moment", fields)
        } else if end.timedOut {
            Log.warning("sound stopped at its timeout (feedback.sound.timeout)", fields)
        } else {
            fields["stderr"] = .string(end.stderrText.trimmingWhitespace())
            Log.warning("sound player failed", fields)
        }
    }
}

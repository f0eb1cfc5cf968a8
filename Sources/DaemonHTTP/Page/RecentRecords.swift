import Synchronization
import TagRouter

/// What just happened, for a live page opened later: the listener's one watcher
/// of the daemon, keeping its last `capacity` records (events with their routes,
/// and the actions' outcomes) and passing every record on to the pages' feeds.
/// A feed that starts following first gets the records kept, in order, so the
/// page opens on the recent taps instead of "Nothing yet".
final class RecentRecords: Sendable {
    /// Records kept: the last 50–200 taps, depending on how many actions each has.
    static let capacity = 200

    private struct State {
        var records: [ObservedRecord] = []
        var followers: [Int: @Sendable (ObservedRecord) -> Void] = [:]
        var nextFollower = 0
    }

    private let observer: DaemonObserver
    private let state = Mutex(State())
    private let watcher = Mutex<Int?>(nil)

    /// Starts watching `observer` now.
    init(observer: DaemonObserver) {
        self.observer = observer
        let id = observer.watch { [weak self] record in self?.receive(record) }
        watcher.withLock { $0 = id }
    }

    /// Stops watching the daemon.
    func stop() {
        if let id = watcher.withLock({ id in defer { id = nil }; return id }) { observer.unwatch(id) }
    }

    /// Calls `receive` with each record kept, oldest first, then with every new record (on the daemon's
    /// threads: it must return at once). Returns the id `unfollow` takes.
    func follow(_ receive: @escaping @Sendable (ObservedRecord) -> Void) -> Int {
        state.withLock { state in
            for record in state.records { receive(record) }
            defer { state.nextFollower += 1 }
            state.followers[state.nextFollower] = receive
            return state.nextFollower
        }
    }

    func unfollow(_ id: Int) {
        state.withLock { _ = $0.followers.removeValue(forKey: id) }
    }

    private func receive(_ record: ObservedRecord) {
        state.withLock { state in
            if state.records.count == Self.capacity { state.records.removeFirst() }
            state.records.append(record)
            for receive in state.followers.values { receive(record) }
        }
    }
}

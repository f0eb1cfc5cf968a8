import Synchronization
import TagCore
import TagRuntime

/// Tells each reader how its taps ended, for the LEDs and buzzer a person at the
/// door sees: it watches the daemon's live records and posts to the reader's
/// `FeedbackBoard` sink — `success` once every action of the matched routes was
/// delivered, `failure` at the first that failed, was dropped or was kept in
/// the spool for later, `no_match`
/// when no route matched, `refused` when a matched route asks `known: false`
/// and the tag is unknown. Only `tag.arrived` events get an outcome. It runs on
/// the router's and workers' threads and never waits: posting only queues.
public final class TapFeedback: Sendable {
    private struct Pending {
        var event: String
        var reader: String
        var remaining: Int
    }

    private let observer: DaemonObserver
    private let board: FeedbackBoard
    /// Arrivals whose actions have not all ended, oldest first (at most `limit`).
    private let pending = Mutex<[Pending]>([])
    private let watcher = Mutex<Int?>(nil)
    static let limit = 256

    public init(observer: DaemonObserver, board: FeedbackBoard) {
        self.observer = observer
        self.board = board
        let id = observer.watch { [weak self] record in self?.observe(record) }
        watcher.withLock { $0 = id }
    }

    /// Stops watching.
    public func stop() {
        if let id = watcher.withLock({ $0.take() }) { observer.unwatch(id) }
    }

    deinit { stop() }

    private func observe(_ record: ObservedRecord) {
        switch record {
        case .routed(let event, let routes, _):
            guard event.kind == .tagArrived else { return }
            guard !routes.isEmpty else { return board.post(.noMatch, reader: event.reader) }
            let matched = observer.routingConfig?.routes.filter { routes.contains($0.name) } ?? []
            if event.tag?.name == nil, matched.contains(where: \.matcher.asksKnown) { return board.post(.refused, reader: event.reader) }
            let actions = matched.reduce(0) { $0 + $1.actions.count }
            guard actions > 0 else { return board.post(.success, reader: event.reader) }
            pending.withLock { pending in
                if pending.count >= Self.limit { pending.removeFirst() }
                pending.append(Pending(event: event.id, reader: event.reader, remaining: actions))
            }
        case .action(let outcome):
            let moment = pending.withLock { pending -> ReaderFeedback.Moment? in
                guard let index = pending.firstIndex(where: { $0.event == outcome.eventID }) else { return nil }
                switch outcome.result {
                case .delivered:
                    pending[index].remaining -= 1
                    guard pending[index].remaining == 0 else { return nil }
                    pending.remove(at: index)
                    return .success
                case .failed, .dropped, .spooled:
                    // Kept in the spool for later is not done now: the person at the door hears it failed.
                    pending.remove(at: index)
                    return .failure
                case .retried:
                    return nil
                }
            }
            if let moment { board.post(moment, reader: outcome.reader) }
        }
    }
}

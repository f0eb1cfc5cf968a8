import Synchronization

/// A delivery an action's worker has accepted: its place in the spool, or nil
/// when the spool could not take it (it then waits in memory only).
struct AcceptedDelivery: Sendable {
    let delivery: Delivery
    let sequence: UInt64?
    /// Counted as `spooled` (its retries ran out once).
    var waited = false
}

/// The deliveries an action has accepted and not yet delivered, in order, for
/// its one delivering loop (any number of producers).
///
/// Up to `limit` of them are held in memory; a written-ahead delivery arriving
/// beyond that is kept only as its sequence in the spool (runs of them as one
/// range) and read back from the spool when its turn comes. So a target that is
/// down for a day costs disk, not memory. A delivery the spool could not take
/// is always held: it exists nowhere else.
final class SpoolBacklog: Sendable {
    private enum Waiting {
        case held(AcceptedDelivery)
        /// Entries of the spool that wait on disk only.
        case onDisk(ClosedRange<UInt64>)
    }

    /// What the delivering loop does next.
    private enum Turn {
        case deliver(AcceptedDelivery)
        case readBack(ClosedRange<UInt64>)
        case wait, end
    }

    private struct State {
        var waiting: [Waiting?] = []
        var head = 0
        /// Deliveries held in memory (`.held` in `waiting`).
        var held = 0
        var consumer: CheckedContinuation<Void, Never>?
        var finished = false

        var isEmpty: Bool { head == waiting.count }

        /// Adds `range` behind what waits, joined to a range of the spool just before it.
        mutating func appendOnDisk(_ range: ClosedRange<UInt64>) {
            if !isEmpty, case .onDisk(let last) = waiting[waiting.count - 1], last.upperBound &+ 1 == range.lowerBound {
                waiting[waiting.count - 1] = .onDisk(last.lowerBound...range.upperBound)
            } else {
                waiting.append(.onDisk(range))
            }
        }

        mutating func turn() -> Turn {
            guard !isEmpty, let first = waiting[head] else { return finished ? .end : .wait }
            guard case .held(let accepted) = first else {
                if case .onDisk(let range) = first { return .readBack(range) }
                return .wait
            }
            waiting[head] = nil
            head += 1
            held -= 1
            if isEmpty {
                // An emptied backlog gives back what a burst made it grow to.
                waiting.removeAll(keepingCapacity: waiting.capacity <= 256)
                head = 0
            } else if head > 64, head * 2 > waiting.count {
                waiting.removeFirst(head)
                head = 0
            }
            return .deliver(accepted)
        }
    }

    /// Written-ahead deliveries held in memory at most (plus one batch read back).
    let limit: Int
    private let spool: Spool
    private let state = Mutex(State())
    /// Entries whose batch could not be read back (moved aside and logged by the spool).
    private let unreadableCount = Atomic<Int>(0)

    init(spool: Spool, limit: Int) {
        self.spool = spool
        self.limit = max(1, limit)
    }

    /// Deliveries held in memory now.
    var held: Int { state.withLock { $0.held } }

    /// Entries skipped because the spool could not read them back.
    var unreadable: Int { unreadableCount.load(ordering: .relaxed) }

    /// Adds `accepted` behind what waits: held in memory while fewer than
    /// `limit` are, else (when it is in the spool) as its sequence only.
    func push(_ accepted: AcceptedDelivery) {
        add { state in
            if let sequence = accepted.sequence, state.held >= limit {
                state.appendOnDisk(sequence...sequence)
            } else {
                state.waiting.append(.held(accepted))
                state.held += 1
            }
        }
    }

    /// Adds entries of the spool that wait on disk only (what `Spool.recover`
    /// found), behind what waits; they are read back when their turn comes.
    func push(onDisk range: ClosedRange<UInt64>) {
        add { $0.appendOnDisk(range) }
    }

    /// Changes the state with `change` and wakes the delivering loop.
    private func add(_ change: (inout State) -> Void) {
        let consumer = state.withLock { state -> CheckedContinuation<Void, Never>? in
            change(&state)
            defer { state.consumer = nil }
            return state.consumer
        }
        consumer?.resume()
    }

    /// No more pushes; `next` returns what still waits, then nil.
    func finish() {
        add { $0.finished = true }
    }

    /// The next delivery in order (read back from the spool when it waits on
    /// disk), waiting for one; nil once finished and empty, or when the calling
    /// task is cancelled.
    func next() async -> AcceptedDelivery? {
        while !Task.isCancelled {
            switch state.withLock({ $0.turn() }) {
            case .deliver(let accepted): return accepted
            case .readBack(let range): readBack(range)
            case .end: return nil
            case .wait: await waitForMore()
            }
        }
        return nil
    }

    /// Empties the backlog without waiting, handing `body` every delivery in
    /// order (those on disk read back a batch at a time).
    func drain(_ body: (AcceptedDelivery) -> Void) {
        while true {
            switch state.withLock({ $0.turn() }) {
            case .deliver(let accepted): body(accepted)
            case .readBack(let range): readBack(range)
            case .end, .wait: return
            }
        }
    }

    /// Replaces the range at the head by the entries read back from its start.
    private func readBack(_ range: ClosedRange<UInt64>) {
        let (entries, through) = spool.read(range, atLeast: limit)
        let skipped = Int(through - range.lowerBound + 1) - entries.count
        if skipped > 0 { unreadableCount.add(skipped, ordering: .relaxed) }
        state.withLock { state in
            // A push may have extended the range meanwhile: keep its current end.
            guard case .onDisk(let current)? = state.waiting[state.head] else { return }
            var replacement: [Waiting?] = entries.map { .held(AcceptedDelivery(delivery: $0.delivery, sequence: $0.sequence)) }
            if through < current.upperBound { replacement.append(.onDisk(through + 1...current.upperBound)) }
            state.waiting.replaceSubrange(state.head...state.head, with: replacement)
            state.held += entries.count
        }
    }

    private func waitForMore() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.finished || !state.isEmpty || Task.isCancelled { return true }
                    state.consumer = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let consumer = state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.consumer = nil }
                return state.consumer
            }
            consumer?.resume()
        }
    }
}

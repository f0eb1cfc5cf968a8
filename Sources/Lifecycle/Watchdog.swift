import Synchronization

/// Runs an action when a deadline passes, for deadlines set and cleared many
/// times a second (a timeout per request). `set` and `clear` do not suspend, so an
/// actor can arm it without letting other work in between.
///
/// A timer task per request costs memory long after the request: a cancelled
/// `Task.sleep` keeps its task and timer (~0.3–0.8 KiB) until the time it was to
/// wake (Swift 6.3 on Linux; docs/development/fuzz-and-soak.md), so a 30 s timeout at 200
/// requests/s holds 6,000 of them. Here one sleeping task serves every deadline:
/// it wakes at the deadline it slept for, sleeps again when the deadline was
/// moved later meanwhile, fires when it is due, and ends when none is set.
public final class Watchdog: Sendable {
    private struct State {
        var deadline: ContinuousClock.Instant?
        var expired: (@Sendable () -> Void)?
        var sleeper: Task<Void, Never>?
        /// When the sleeper wakes.
        var wakesAt: ContinuousClock.Instant?
        var sleepsStarted = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// Sleeps started so far (how tests see that deadlines share one).
    var sleepsStarted: Int { state.withLock { $0.sleepsStarted } }

    /// Calls `expired` at `deadline`, unless `clear()` or another `set` comes first.
    public func set(_ deadline: ContinuousClock.Instant, _ expired: @escaping @Sendable () -> Void) {
        state.withLock { state in
            (state.deadline, state.expired) = (deadline, expired)
            if let wakesAt = state.wakesAt, wakesAt <= deadline { return }
            state.sleeper?.cancel()  // it would wake too late
            startSleeping(&state, until: deadline)
        }
    }

    /// Forgets the deadline: nothing fires.
    public func clear() {
        state.withLock { state in (state.deadline, state.expired) = (nil, nil) }
    }

    /// Forgets the deadline and ends the sleeping task now.
    public func cancel() {
        state.withLock { state in
            state.sleeper?.cancel()
            (state.deadline, state.expired, state.sleeper, state.wakesAt) = (nil, nil, nil, nil)
        }
    }

    private func startSleeping(_ state: inout State, until instant: ContinuousClock.Instant) {
        state.sleepsStarted += 1
        state.wakesAt = instant
        state.sleeper = Task { await self.sleep(until: instant) }
    }

    private func sleep(until instant: ContinuousClock.Instant) async {
        guard (try? await Task.sleep(until: instant)) != nil else { return }
        let action: (@Sendable () -> Void)? = state.withLock { state in
            // Cancelled after waking: replaced by a sleeper that wakes earlier, or the whole watchdog cancelled.
            guard !Task.isCancelled else { return nil }
            (state.sleeper, state.wakesAt) = (nil, nil)
            guard let deadline = state.deadline else { return nil }
            if deadline > .now {
                startSleeping(&state, until: deadline)
                return nil
            }
            defer { (state.deadline, state.expired) = (nil, nil) }
            return state.expired
        }
        action?()
    }
}

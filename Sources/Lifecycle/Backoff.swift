/// How long a retry loop waits before its next attempt: exponential, capped, and
/// with optional jitter. The one wait policy of every loop that tries again —
/// reopening a reader, reconnecting to the broker, restarting an exec plugin,
/// retrying a delivery, retrying the spool.
///
/// The wait before attempt `n + 1` after `n` failures (n = 1 for the first) has the
/// ceiling `initial·2^(n−1)`, never more than `maximum`. With `jitter` j the wait
/// is a random point in `[(1−j)·ceiling, ceiling]`, so many loops failing at the
/// same moment do not all try again at the same moment.
///
/// Callers that count failures themselves ask `delay(forAttempt:)`; the others let
/// the value count: `next()` after each failure, `reset()` after a success.
public struct Backoff: Sendable, Equatable {
    /// The wait after the first failure.
    public let initial: Duration
    /// The longest wait (never less than `initial`).
    public let maximum: Duration
    /// The random share of each wait, from 0 (none) to 1 (anywhere from zero to the ceiling).
    public let jitter: Double
    /// Failures counted by `next()` since the value was made or last `reset()`.
    public private(set) var failures = 0

    public init(initial: Duration, maximum: Duration, jitter: Double = 0) {
        self.initial = max(initial, .zero)
        self.maximum = max(self.initial, maximum)
        self.jitter = min(max(jitter, 0), 1)
    }

    /// The longest wait after `attempt` failures in a row (1 for the first):
    /// `initial·2^(attempt−1)`, capped at `maximum`. Pure; no jitter.
    public func ceiling(forAttempt attempt: Int) -> Duration {
        var delay = initial
        var doublings = attempt - 1
        // Stops at the cap, so a long run of failures costs a few dozen steps at most.
        while doublings > 0, delay > .zero, delay < maximum {
            delay *= 2
            doublings -= 1
        }
        return min(delay, maximum)
    }

    /// The wait after `attempt` failures in a row (1 for the first): the ceiling less
    /// a random part of up to `jitter` of it. Without jitter it is the ceiling.
    public func delay(forAttempt attempt: Int) -> Duration {
        let ceiling = ceiling(forAttempt: attempt)
        guard jitter > 0 else { return ceiling }
        return ceiling * (1 - jitter * Double.random(in: 0...1))
    }

    /// Counts one more failure and returns the wait before the next attempt.
    public mutating func next() -> Duration {
        failures += 1
        return delay(forAttempt: failures)
    }

    /// After a success: the next failure waits `initial` again.
    public mutating func reset() { failures = 0 }
}

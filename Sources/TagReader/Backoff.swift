/// Exponential backoff for reopening a reader: `initial`, doubling up to `maximum`,
/// back to `initial` after `reset()`.
struct Backoff: Sendable {
    let initial: Duration
    let maximum: Duration
    private var current: Duration

    init(initial: Duration = .milliseconds(250), maximum: Duration = .seconds(5)) {
        self.initial = initial
        self.maximum = maximum
        current = initial
    }

    /// The wait before the next attempt.
    mutating func next() -> Duration {
        defer { current = min(current * 2, maximum) }
        return current
    }

    mutating func reset() { current = initial }
}

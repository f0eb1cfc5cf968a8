/// How long to wait before the next connection attempt: `initial` after the
/// first failure, doubling with each further failure, never more than `maximum`.
/// A successful CONNACK starts the count again.
public struct ReconnectBackoff: Sendable, Equatable {
    public var initial: Duration
    public var maximum: Duration

    public init(initial: Duration = .seconds(1), maximum: Duration = .seconds(30)) {
        self.initial = initial
        self.maximum = max(initial, maximum)
    }

    /// The wait after `failures` failed attempts in a row (1 for the first).
    public func delay(afterFailures failures: Int) -> Duration {
        guard failures > 1 else { return initial }
        var delay = initial
        for _ in 1..<min(failures, 32) {
            delay *= 2
            if delay >= maximum { return maximum }
        }
        return delay
    }
}

import Lifecycle

/// How an action's deliveries are retried and kept: the options the router adds
/// to every action (`queue`, `retry: {attempts, backoff, max_backoff}`, `spool`).
public struct DeliveryPolicy: Sendable, Equatable {
    /// Events waiting in memory for this action; when full, the oldest is dropped (logged, counted).
    public var queueCapacity: Int
    /// Tries in all, the first included (1: no retry).
    public var attempts: Int
    /// The wait before the first retry; it doubles for each further one, with jitter.
    public var backoff: Duration
    /// The longest wait between tries, and between tries of a spooled event.
    public var maxBackoff: Duration
    /// Whether events are written ahead to disk before their first attempt, and wait there for the target when retries run out.
    public var spool: Bool
    /// Whether the user wrote `retry:` (plugins may treat failures differently then).
    public var retryConfigured: Bool

    /// Every setting given; an action's come from `init(_:)`, with the defaults of `options`.
    public init(queueCapacity: Int, attempts: Int, backoff: Duration, maxBackoff: Duration, spool: Bool, retryConfigured: Bool) {
        self.queueCapacity = queueCapacity
        self.attempts = attempts
        self.backoff = backoff
        self.maxBackoff = maxBackoff
        self.spool = spool
        self.retryConfigured = retryConfigured
    }

    /// The options every action accepts besides its own.
    public static let options: [Option] = [
        Option("queue", .int(1...1_000_000), default: "100", "events waiting in memory for this action, in each of two lanes: local readers' events, delivered first (when full the oldest is dropped and counted), and inputs' events (when full the input waits)"),
        Option("retry", .section(OptionSpec("retries of a failed delivery", [
            Option("attempts", .int(1...1000), default: "3", "tries in all, the first included"),
            Option("backoff", .duration, default: "1s", "wait before the first retry; doubles each time, with jitter"),
            Option("max_backoff", .duration, default: "1m", "the longest wait between tries"),
        ])), "retry a delivery that failed for a reason that may pass (target down, 5xx)"),
        Option("spool", .bool, default: "true", "write each event ahead to disk under `state_dir` (`fsync`, grouped) before its first attempt; when retries run out it waits there and is delivered, in order, when the target is back"),
    ]

    /// Reads the policy from an action's validated options.
    public init(_ options: ConfigValue) {
        let retry = options.section("retry")
        self.init(
            queueCapacity: options.int("queue"), attempts: retry.int("attempts"), backoff: retry.duration("backoff"),
            maxBackoff: retry.duration("max_backoff"), spool: options.bool("spool"), retryConfigured: options.has("retry"))
    }

    /// The waits between tries (and between tries of a spooled event): backoff·2^(n−1),
    /// capped at `maxBackoff`, then a random point in its upper half (so retries of
    /// many actions spread out).
    public var retryBackoff: Backoff { Backoff(initial: backoff, maximum: maxBackoff, jitter: 0.5) }

    /// The wait before try `attempt + 1` after try `attempt` failed: what the target
    /// asked for (`Retry-After`), capped at `maxBackoff`, else the retry backoff's.
    public func delay(afterAttempt attempt: Int, requested: Duration? = nil) -> Duration {
        if let requested { return min(requested, maxBackoff) }
        return retryBackoff.delay(forAttempt: attempt)
    }
}

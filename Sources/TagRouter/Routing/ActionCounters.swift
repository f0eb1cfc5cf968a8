/// What happened to the deliveries of one action since the router started.
public struct ActionCounters: Sendable, Equatable {
    /// Performed successfully (or, under `--dry-run`, described).
    public var delivered = 0
    /// Failed for good: a permanent error, or retries ran out with no spool.
    public var failed = 0
    /// Dropped from a full queue to make room for a newer event.
    public var dropped = 0
    /// Left waiting in the spool: retries ran out, or the worker stopped before delivering them.
    public var spooled = 0
    /// Retries made.
    public var retried = 0

    public init() {}
}

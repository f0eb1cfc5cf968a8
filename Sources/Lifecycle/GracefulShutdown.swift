/// The graceful-shutdown signal of the service running in the calling task: a
/// `ServiceGroup` member that stops `.graceful` gets it before any cancellation
/// (as swift-service-lifecycle's `gracefulShutdown()`): stop taking work, finish
/// or hand on what is in hand, return. Cancellation may follow at the group's
/// graceful deadline, and then means "stop now".
public enum GracefulShutdown {
    @TaskLocal static var signal: Latch?

    /// Returns once the graceful shutdown of the calling service has begun, or
    /// the task is cancelled. Outside a group's `.graceful` member only cancellation ends it.
    public static func wait() async {
        await (signal ?? Latch()).wait()
    }

    /// True once the graceful shutdown of the calling service has begun.
    public static var isRequested: Bool { signal?.isOpen ?? false }

    /// Runs `operation` — a service with nothing to finish — until it ends, and
    /// cancels it once the graceful shutdown of the calling service begins (as
    /// swift-service-lifecycle's `cancelWhenGracefulShutdown`).
    public static func cancelling(_ operation: @escaping @Sendable () async throws -> Void) async throws {
        guard let signal else { return try await operation() }
        try await signal.cancelling(operation)
    }

    /// Runs `operation` with `signal` as its graceful-shutdown signal.
    static func withSignal<Result: Sendable>(_ signal: Latch, _ operation: @Sendable () async throws -> Result) async rethrows -> Result {
        try await $signal.withValue(signal) { try await operation() }
    }
}

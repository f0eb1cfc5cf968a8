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

    /// Runs `operation` with `signal` as its graceful-shutdown signal.
    static func withSignal<Result: Sendable>(_ signal: Latch, _ operation: @Sendable () async throws -> Result) async rethrows -> Result {
        try await $signal.withValue(signal) { try await operation() }
    }
}

import Lifecycle
import TagCore
import TagRuntime

/// Events the host hands its daemon in its own process (a test, a program that embeds the daemon): one more
/// source beside the readers and inputs, on their path into the daemon's bounded `EventBuffer`. `send` is an
/// input's way in (it waits for room, and the router waits for room in full action queues for it), `offer` a
/// reader's (it never waits; a full lane drops its oldest). `finish()` ends this source: with no readers or
/// inputs running, the daemon then routes what it holds and stops, as at the end of an events file.
public final class HostEvents: Sendable {
    private let buffer: EventBuffer
    private let ended = Latch()

    init(buffer: EventBuffer) { self.buffer = buffer }

    /// Hands `event` to the router as an input does, waiting for room; false when it was not taken (this source
    /// was finished, the daemon is stopping, or the caller was cancelled).
    @discardableResult
    public func send(_ event: TagEvent) async -> Bool {
        guard !ended.isOpen else { return false }
        return await buffer.send(event)
    }

    /// Hands `event` to the router as a local reader does: at once, ahead of what inputs sent.
    public func offer(_ event: TagEvent) {
        guard !ended.isOpen else { return }
        buffer.offer(event)
    }

    /// No more events from the host.
    public func finish() { ended.open() }

    /// This source as the daemon runs it: it ends once `finish()` was called, or at the graceful shutdown.
    var service: any Service { Source(ended: ended) }

    private struct Source: Service {
        let ended: Latch

        func run() async throws { try await GracefulShutdown.cancelling { [ended] in await ended.wait() } }
    }
}

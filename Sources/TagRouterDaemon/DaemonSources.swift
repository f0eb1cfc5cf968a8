import Lifecycle
import TagCore
import TagRuntime

/// The daemon's event sources as one service: runs them side by side and, once
/// they have all ended (the input ended, or the shutdown stopped them: each
/// source gets the graceful-shutdown signal in its task, see
/// `SourcePlugin.finishesGracefully`), finishes the buffer, so the router
/// routes what it holds and stops.
struct DaemonSources: Service {
    let sources: [any Service]
    let buffer: EventBuffer

    func run() async throws {
        defer { buffer.finish() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for source in sources { group.addTask { try await source.run() } }
            while try await group.next() != nil {}
        }
    }
}

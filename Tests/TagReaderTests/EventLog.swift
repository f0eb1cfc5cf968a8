import Foundation
import Synchronization
import TagCore
import TagReader

/// Collects a supervisor's events as they come, for tests to await with a
/// deadline (failing, not hanging, when it passes). `reader.waiting` events are kept
/// apart (`waits`): under load a device can take a moment to open (a chip slow to
/// answer, the lock of the test before being released), which is not what a test of
/// the events after it is about.
final class EventLog: Sendable {
    private final class Storage: Sendable {
        let events = Mutex<[TagEvent]>([])
        let waits = Mutex<[TagEvent]>([])
        /// The supervisor's stream finished: every reader thread has ended.
        let finished = Atomic<Bool>(false)
    }

    private let storage = Storage()

    init(_ supervisor: ReaderSupervisor) {
        let storage = storage
        Task {
            for await event in supervisor.events {
                if event.kind == .readerWaiting {
                    storage.waits.withLock { $0.append(event) }
                } else {
                    storage.events.withLock { $0.append(event) }
                }
            }
            storage.finished.store(true, ordering: .sequentiallyConsistent)
        }
    }

    struct Timeout: Error, CustomStringConvertible {
        let description: String
    }

    /// The first `count` events (or more), once they have arrived.
    @discardableResult
    func wait(for count: Int, within limit: Duration = .seconds(20)) async throws -> [TagEvent] {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            let events = storage.events.withLock { $0 }
            if events.count >= count { return events }
            try await Task.sleep(for: .milliseconds(10))
        }
        let events = storage.events.withLock { $0 }
        throw Timeout(description: "expected \(count) events within \(limit), got \(events.count): \(Self.summary(events))")
    }

    /// Returns once the supervisor's readers have all ended (after `stop()`), so
    /// their devices are free for the next user.
    func waitUntilFinished(within limit: Duration = .seconds(20)) async throws {
        let deadline = ContinuousClock.now + limit
        while !storage.finished.load(ordering: .sequentiallyConsistent) {
            guard ContinuousClock.now < deadline else { throw Timeout(description: "the readers did not end within \(limit)") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Waits until `count` events arrived, then returns their short forms (`tag.arrived 04…`).
    func kinds(_ count: Int) async throws -> [String] {
        Self.summary(Array(try await wait(for: count).prefix(count)))
    }

    var events: [TagEvent] { storage.events.withLock { $0 } }

    /// The `reader.waiting` events so far.
    var waits: [TagEvent] { storage.waits.withLock { $0 } }

    static func summary(_ events: [TagEvent]) -> [String] {
        events.map { event in [event.kind.rawValue, event.tag?.uid.hex].compactMap { $0 }.joined(separator: " ") }
    }
}

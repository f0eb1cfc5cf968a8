import Foundation
import Synchronization
import TagCore
import TagReader

/// Collects a supervisor's events as they come, for tests to await with a
/// deadline (failing, not hanging, when it passes).
final class EventLog: Sendable {
    private final class Storage: Sendable {
        let events = Mutex<[TagEvent]>([])
    }

    private let storage = Storage()

    init(_ supervisor: ReaderSupervisor) {
        let storage = storage
        Task {
            for await event in supervisor.events { storage.events.withLock { $0.append(event) } }
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

    /// Waits until `count` events arrived, then returns their short forms (`tag.arrived 04…`).
    func kinds(_ count: Int) async throws -> [String] {
        Self.summary(Array(try await wait(for: count).prefix(count)))
    }

    var events: [TagEvent] { storage.events.withLock { $0 } }

    static func summary(_ events: [TagEvent]) -> [String] {
        events.map { event in [event.kind.rawValue, event.tag?.uid.hex].compactMap { $0 }.joined(separator: " ") }
    }
}

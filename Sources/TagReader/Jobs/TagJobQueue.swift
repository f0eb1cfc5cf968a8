import Lifecycle
import OrderedJSON
import Synchronization
import SystemKit
import TagCore

/// The jobs waiting for one reader's tags, oldest first: the control socket and
/// MQTT put (never blocking), the reader's thread claims one between polls when
/// a tag arrives (or, for a job that takes it, while one lies there). Each job is
/// answered exactly once: by the thread that claimed it, or — still waiting at its
/// deadline — with `no_tag` by the queue's one `Watchdog` (armed for the earliest
/// deadline waiting), so a reader that is down or blocked in a poll cannot keep
/// the caller waiting past its timeout, and an answered job leaves no timer behind.
public final class TagJobQueue: Sendable {
    /// A job a reader's thread took: do it, then `finish` it.
    package struct Claimed: Sendable {
        package let job: TagJob
        private let answer: @Sendable (TagJobResult) -> Void

        init(job: TagJob, answer: @escaping @Sendable (TagJobResult) -> Void) {
            self.job = job
            self.answer = answer
        }

        package func finish(_ result: TagJobResult) { answer(result) }
    }

    private struct Waiting {
        let id: Int
        let job: TagJob
        let deadline: ContinuousClock.Instant
        let answer: @Sendable (TagJobResult) -> Void
    }

    public let reader: String
    private let state = Mutex<(waiting: [Waiting], nextID: Int)>(([], 0))
    /// Fires at the earliest deadline of the jobs waiting.
    private let expiry = Watchdog()

    public init(reader: String) { self.reader = reader }

    deinit { expiry.cancel() }

    /// Queues `job`; `answer` is called once, on the reader's thread, the watchdog's task, or the canceller's.
    @discardableResult
    public func submit(_ job: TagJob, answer: @escaping @Sendable (TagJobResult) -> Void) -> TagJobHandle {
        let deadline = ContinuousClock.now + job.timeout
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            state.waiting.append(Waiting(id: state.nextID, job: job, deadline: deadline, answer: answer))
            if state.waiting.allSatisfy({ $0.deadline >= deadline }) { armExpiry(for: deadline) }
            return state.nextID
        }
        Log.info(
            job.work == .read ? "read requested; waiting for a tag" : "write requested; waiting for a tag",
            JSONObject(["reader": .string(reader), "origin": .string(job.origin), "takes_present": .bool(job.takesPresent)]))
        return TagJobHandle { [weak self] in
            self?.withdraw(id, TagJobRefusal(.cancelled, "the request was withdrawn before a tag came"))
        }
    }

    /// Whether a job waits that a tag lying on the reader would do.
    package var wantsPresentTag: Bool { state.withLock { $0.waiting.contains { $0.job.takesPresent } } }

    /// The oldest job for a tag that just arrived (`arriving`) or lies there, taken off the queue.
    package func claim(arriving: Bool) -> Claimed? {
        state.withLock { state in
            guard let index = state.waiting.firstIndex(where: { arriving || $0.job.takesPresent }) else { return nil }
            let taken = state.waiting.remove(at: index)
            return Claimed(job: taken.job, answer: taken.answer)
        }
    }

    /// Refuses every waiting job (the reader was removed from the config).
    package func refuseAll(_ refusal: TagJobRefusal) {
        let waiting = state.withLock { state in
            defer { state.waiting = [] }
            return state.waiting
        }
        for job in waiting { job.answer(.refused(refusal)) }
    }

    /// Answers every job past its deadline with `no_tag`, and arms the watchdog for the next deadline.
    private func expireDue() {
        let now = ContinuousClock.now
        let expired = state.withLock { state -> [Waiting] in
            let expired = state.waiting.filter { $0.deadline <= now }
            state.waiting.removeAll { $0.deadline <= now }
            if let next = state.waiting.map(\.deadline).min() { armExpiry(for: next) }
            return expired
        }
        for job in expired { job.answer(.refused(TagJobRefusal(.noTag, Self.noTag(job.job, reader: reader)))) }
    }

    private func armExpiry(for deadline: ContinuousClock.Instant) {
        expiry.set(deadline) { [weak self] in self?.expireDue() }
    }

    /// Answers job `id` with `refusal` if it still waits.
    private func withdraw(_ id: Int, _ refusal: TagJobRefusal) {
        let waiting = state.withLock { state -> Waiting? in
            guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiting.remove(at: index)
        }
        waiting?.answer(.refused(refusal))
    }

    private static func noTag(_ job: TagJob, reader: String) -> String {
        let seconds = Double(job.timeout.milliseconds) / 1000
        let place = job.takesPresent ? "arrived on" : "was placed on"
        let hint = job.takesPresent ? "" : " (a tag lying there already does not count: lift it and place it again)"
        return "no tag \(place) reader '\(reader)' within \(seconds.formatted) s\(hint)"
    }
}

extension Double {
    /// `0.5`, `30` (no `.0` for whole numbers).
    var formatted: String { self == rounded() && abs(self) < 1e15 ? String(Int64(self)) : String(self) }
}

import Synchronization

/// A FIFO with a capacity for one consumer: `push` never waits (when full the
/// oldest element makes room and is returned so the caller can log it), `next`
/// waits for an element and returns nil once the queue is finished and empty.
final class BoundedQueue<Element: Sendable>: Sendable {
    private struct State {
        var buffer: [Element?] = []
        var head = 0
        var waiter: CheckedContinuation<Element?, Never>?
        var finished = false

        var count: Int { buffer.count - head }

        mutating func popFirst() -> Element? {
            guard head < buffer.count else { return nil }
            let element = buffer[head]
            buffer[head] = nil
            head += 1
            if head > 64, head * 2 > buffer.count {
                buffer.removeFirst(head)
                head = 0
            }
            return element
        }
    }

    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// Adds `element`; returns the element dropped to make room, if any.
    /// After `finish`, the element itself is returned (refused).
    @discardableResult
    func push(_ element: Element) -> Element? {
        state.withLock { state -> Element? in
            if state.finished { return element }
            if let waiter = state.waiter {
                state.waiter = nil
                waiter.resume(returning: element)
                return nil
            }
            var dropped: Element?
            if state.count >= capacity { dropped = state.popFirst() }
            state.buffer.append(element)
            return dropped
        }
    }

    /// The next element, waiting for one; nil when finished and empty.
    func next() async -> Element? {
        await withCheckedContinuation { continuation in
            state.withLock { state in
                if let element = state.popFirst() {
                    continuation.resume(returning: element)
                } else if state.finished {
                    continuation.resume(returning: nil)
                } else {
                    state.waiter = continuation
                }
            }
        }
    }

    /// Takes every element waiting now, without waiting.
    func drain() -> [Element] {
        state.withLock { state in
            var all: [Element] = []
            while let element = state.popFirst() { all.append(element) }
            return all
        }
    }

    /// No more pushes; a waiting `next` returns nil.
    func finish() {
        state.withLock { state in
            state.finished = true
            state.waiter?.resume(returning: nil)
            state.waiter = nil
        }
    }

    var count: Int { state.withLock { $0.count } }

    /// True once `finish` was called.
    var isFinished: Bool { state.withLock { $0.finished } }
}

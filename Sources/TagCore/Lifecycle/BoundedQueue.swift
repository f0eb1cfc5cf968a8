import Synchronization

/// A FIFO with a capacity, for one consumer and any number of producers.
///
/// A producer either `push`es without waiting — when full, the oldest element
/// makes room and is returned so the caller can count and log it — or `send`s,
/// waiting for room (backpressure). `next` waits for an element and returns nil
/// once the queue is finished and empty, when the consumer's task is cancelled,
/// or once after `interrupt()`.
///
/// The hot paths are `@inlinable`: a queue of a type from another module (the
/// router's `Delivery`) is then specialised there instead of looking up generic
/// metadata on every call (~10 k instructions per routed event).
public final class BoundedQueue<Element: Sendable>: Sendable {
    @usableFromInline struct Sender {
        @usableFromInline let id: Int
        @usableFromInline let element: Element
        @usableFromInline let continuation: CheckedContinuation<Bool, Never>

        @usableFromInline init(id: Int, element: Element, continuation: CheckedContinuation<Bool, Never>) {
            self.id = id
            self.element = element
            self.continuation = continuation
        }
    }

    @usableFromInline struct State {
        @usableFromInline var buffer: [Element?] = []
        @usableFromInline var head = 0
        @usableFromInline var consumer: CheckedContinuation<Element?, Never>?
        /// Producers waiting for room, oldest first.
        @usableFromInline var senders: [Sender] = []
        @usableFromInline var nextID = 0
        @usableFromInline var finished = false
        @usableFromInline var interrupted = false

        @usableFromInline init() {}

        @usableFromInline var count: Int { buffer.count - head }

        @usableFromInline mutating func popFirst(capacity: Int) -> Element? {
            guard head < buffer.count else { return nil }
            let element = buffer[head]
            buffer[head] = nil
            head += 1
            if head == buffer.count {
                // Emptied: give back what a backlog made the buffer grow to.
                buffer.removeAll(keepingCapacity: buffer.capacity <= 256)
                head = 0
            } else if head > 64, head * 2 > buffer.count {
                buffer.removeFirst(head)
                head = 0
            }
            admitSenders(capacity: capacity)
            return element
        }

        /// Moves waiting senders' elements in while there is room.
        @usableFromInline mutating func admitSenders(capacity: Int) {
            while count < capacity, !senders.isEmpty {
                let sender = senders.removeFirst()
                buffer.append(sender.element)
                sender.continuation.resume(returning: true)
            }
        }

        @usableFromInline mutating func newID() -> Int {
            defer { nextID += 1 }
            return nextID
        }
    }

    public let capacity: Int
    @usableFromInline let state = Mutex(State())

    public init(capacity: Int) { self.capacity = max(1, capacity) }

    /// Adds `element` without waiting; returns the element dropped to make room,
    /// if any. After `finish`, the element itself is returned (refused).
    @inlinable @discardableResult
    public func push(_ element: Element) -> Element? {
        state.withLock { state -> Element? in
            if state.finished { return element }
            if let consumer = state.consumer {
                state.consumer = nil
                consumer.resume(returning: element)
                return nil
            }
            var dropped: Element?
            if state.count >= capacity { dropped = state.popFirst(capacity: capacity) }
            state.buffer.append(element)
            return dropped
        }
    }

    /// Adds `element`, waiting for room behind earlier senders. False when it was
    /// not added: the queue is finished, or the caller's task was cancelled.
    @inlinable public func send(_ element: Element) async -> Bool {
        // The common case, room and no one ahead, without suspending.
        let cancelled = Task.isCancelled
        let id = state.withLock { state -> Int? in
            if !cancelled, !state.finished, state.consumer == nil, state.count < capacity, state.senders.isEmpty {
                state.buffer.append(element)
                return nil
            }
            return state.newID()
        }
        guard let id else { return true }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                state.withLock { state in
                    if state.finished || Task.isCancelled { return continuation.resume(returning: false) }
                    if let consumer = state.consumer {
                        state.consumer = nil
                        consumer.resume(returning: element)
                        return continuation.resume(returning: true)
                    }
                    if state.count < capacity && state.senders.isEmpty {
                        state.buffer.append(element)
                        return continuation.resume(returning: true)
                    }
                    state.senders.append(Sender(id: id, element: element, continuation: continuation))
                }
            }
        } onCancel: {
            state.withLock { state in
                guard let index = state.senders.firstIndex(where: { $0.id == id }) else { return }
                state.senders.remove(at: index).continuation.resume(returning: false)
            }
        }
    }

    /// The next element, waiting for one; nil when finished and empty, when the
    /// calling task is cancelled, or once after `interrupt()`.
    @inlinable public func next() async -> Element? {
        // The common case under load, an element waiting, without suspending.
        if !Task.isCancelled, let element = state.withLock({ $0.interrupted ? nil : $0.popFirst(capacity: capacity) }) { return element }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                state.withLock { state in
                    if state.interrupted || Task.isCancelled {
                        state.interrupted = false
                        continuation.resume(returning: nil)
                    } else if let element = state.popFirst(capacity: capacity) {
                        continuation.resume(returning: element)
                    } else if state.finished {
                        continuation.resume(returning: nil)
                    } else {
                        state.consumer = continuation
                    }
                }
            }
        } onCancel: {
            state.withLock { state in
                state.consumer?.resume(returning: nil)
                state.consumer = nil
            }
        }
    }

    /// Makes the consumer's current (or next) `next` return nil once, keeping the
    /// elements: a new consumer can take over where it stopped.
    public func interrupt() {
        state.withLock { state in
            if let consumer = state.consumer {
                state.consumer = nil
                consumer.resume(returning: nil)
            } else {
                state.interrupted = true
            }
        }
    }

    /// Takes every element waiting now, without waiting (then admits waiting senders).
    @inlinable public func drain() -> [Element] {
        state.withLock { state in
            var all: [Element] = []
            while let element = state.popFirst(capacity: capacity) { all.append(element) }
            return all
        }
    }

    /// No more elements: pushes and waiting sends are refused; `next` returns the
    /// elements still held, then nil.
    public func finish() {
        state.withLock { state in
            state.finished = true
            state.consumer?.resume(returning: nil)
            state.consumer = nil
            for sender in state.senders { sender.continuation.resume(returning: false) }
            state.senders = []
        }
    }

    @inlinable public var count: Int { state.withLock { $0.count } }

    /// True once `finish` was called.
    public var isFinished: Bool { state.withLock { $0.finished } }
}

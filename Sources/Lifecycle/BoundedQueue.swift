import Dispatch
import Synchronization

/// The house's one bounded FIFO, for one consumer and any number of producers,
/// in two lanes of `capacity` elements each.
///
/// A producer that cannot wait (a reader, an observer's callback) `push`es into
/// the live lane: when it is full its oldest element makes room and is returned
/// so the caller can count and log it. A producer that can wait (a file, a
/// broker that redelivers) `send`s — or, on a thread of its own,
/// `sendBlocking` — into the waiting lane, waiting for room there
/// (backpressure): nothing it sent is ever dropped. The consumer takes the live
/// lane first, so a live element never waits behind a flood of waiting ones,
/// and a push never drops what a waiting producer sent.
///
/// The consumer is a task (`next`, or `for await` over the queue) or a thread
/// (`take(waiting:)`). `next` returns nil once the queue is finished and
/// empty, when the consumer's task is cancelled, or once its `until` latch is
/// open: then no element reaches it any more, and the elements stay for the
/// consumer that takes over (a reload's next router).
///
/// The hot paths are `@inlinable`: a queue of a type from another module (the
/// router's `Delivery`) is then specialised there instead of looking up generic
/// metadata on every call (~10 k instructions per routed event).
public final class BoundedQueue<Element: Sendable>: Sendable {
    /// A producer waiting for room in the waiting lane: a task or a thread.
    @usableFromInline struct Sender {
        @usableFromInline let id: Int
        @usableFromInline let element: Element
        /// Told true once the element is in, false when it never will be.
        @usableFromInline let resume: @Sendable (Bool) -> Void

        @usableFromInline init(id: Int, element: Element, resume: @escaping @Sendable (Bool) -> Void) {
            self.id = id
            self.element = element
            self.resume = resume
        }
    }

    @usableFromInline struct State {
        /// Pushed elements: a full lane drops its oldest.
        @usableFromInline var live = QueueLane<Element>()
        /// Sent elements: a full lane makes its senders wait.
        @usableFromInline var waiting = QueueLane<Element>()
        @usableFromInline var consumer: CheckedContinuation<Element?, Never>?
        /// The waiting consumer's `until` latch: once it is open, nothing is handed to that consumer.
        @usableFromInline var consumerStop: Latch?
        /// A consumer thread waiting in `take(waiting:)`.
        @usableFromInline var consumerThread: DispatchSemaphore?
        /// Producers waiting for room, oldest first.
        @usableFromInline var senders: [Sender] = []
        @usableFromInline var nextID = 0
        @usableFromInline var finished = false
        /// Live elements dropped since the last `take`.
        @usableFromInline var dropped = 0

        @usableFromInline init() {}

        @inlinable var count: Int { live.count + waiting.count }

        /// The oldest live element, else the oldest waiting one (then a waiting sender moves in).
        @inlinable mutating func popFirst(capacity: Int) -> Element? {
            if let element = live.popFirst() { return element }
            guard let element = waiting.popFirst() else { return nil }
            while waiting.count < capacity, !senders.isEmpty {
                let sender = senders.removeFirst()
                waiting.append(sender.element)
                sender.resume(true)
            }
            return element
        }

        /// The waiting consumer, taken, unless its `until` latch is open (it is to
        /// be handed nothing more; `wakeStopped` ends its wait).
        @inlinable mutating func takeConsumer() -> CheckedContinuation<Element?, Never>? {
            guard let waiting = consumer, consumerStop?.isOpen != true else { return nil }
            consumer = nil
            consumerStop = nil
            return waiting
        }

        /// Hands `element` to a waiting consumer, or adds it to the waiting lane
        /// when there is room and nobody waits ahead: true. False when finished.
        /// Otherwise `sender` waits for room: nil.
        @inlinable mutating func send(_ element: Element, orWait sender: () -> Sender, capacity: Int) -> Bool? {
            if finished { return false }
            if let consumer = takeConsumer() {
                consumer.resume(returning: element)
                return true
            }
            if waiting.count < capacity && senders.isEmpty {
                waiting.append(element)
                wakeConsumerThread()
                return true
            }
            senders.append(sender())
            return nil
        }

        @inlinable mutating func wakeConsumerThread() {
            guard let thread = consumerThread else { return }
            consumerThread = nil
            thread.signal()
        }

        @inlinable mutating func newID() -> Int {
            defer { nextID += 1 }
            return nextID
        }
    }

    /// The capacity of each lane.
    public let capacity: Int
    @usableFromInline let state = Mutex(State())

    public init(capacity: Int) { self.capacity = Swift.max(1, capacity) }

    /// Adds `element` to the live lane without waiting; returns the element
    /// dropped to make room, if any (never one that was sent). After `finish`,
    /// the element itself is returned (refused).
    @inlinable @discardableResult
    public func push(_ element: Element) -> Element? {
        state.withLock { state -> Element? in
            if state.finished { return element }
            if let consumer = state.takeConsumer() {
                consumer.resume(returning: element)
                return nil
            }
            var dropped: Element?
            if state.live.count >= capacity {
                dropped = state.live.popFirst()
                state.dropped += 1
            }
            state.live.append(element)
            state.wakeConsumerThread()
            return dropped
        }
    }

    /// Adds `element` to the waiting lane, waiting for room behind earlier
    /// senders. False when it was not added: the queue is finished, or the
    /// caller's task was cancelled.
    @inlinable public func send(_ element: Element) async -> Bool {
        // The common case, room and no one ahead, without suspending.
        let cancelled = Task.isCancelled
        let id = state.withLock { state -> Int? in
            if !cancelled, !state.finished, state.consumer == nil, state.waiting.count < capacity, state.senders.isEmpty {
                state.waiting.append(element)
                state.wakeConsumerThread()
                return nil
            }
            return state.newID()
        }
        guard let id else { return true }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let decided = state.withLock { state -> Bool? in
                    if Task.isCancelled { return false }
                    return state.send(element, orWait: { Sender(id: id, element: element, resume: { continuation.resume(returning: $0) }) }, capacity: capacity)
                }
                if let decided { continuation.resume(returning: decided) }
            }
        } onCancel: {
            state.withLock { state in
                guard let index = state.senders.firstIndex(where: { $0.id == id }) else { return }
                state.senders.remove(at: index).resume(false)
            }
        }
    }

    /// `send` for a producer on a thread of its own (a blocking reader of a
    /// file): blocks the thread until there is room. False when the queue was
    /// finished (the consumer has gone): the producer stops.
    @inlinable public func sendBlocking(_ element: Element) -> Bool {
        let handoff = Handoff()
        let decided = state.withLock { state -> Bool? in
            let id = state.newID()
            return state.send(element, orWait: { Sender(id: id, element: element, resume: handoff.resume) }, capacity: capacity)
        }
        if let decided { return decided }
        handoff.ready.wait()
        return handoff.added.load(ordering: .acquiring)
    }

    /// `sendBlocking` for several elements, in order: as many as there is room for
    /// go in under one lock (a waiting consumer is woken once, not per element),
    /// the rest one at a time as room appears. False when the queue was finished
    /// before all were added.
    @inlinable public func sendBlocking(contentsOf elements: [Element]) -> Bool {
        let added = state.withLock { state -> Int? in
            if state.finished { return nil }
            var added = 0
            if let first = elements.first, let consumer = state.takeConsumer() {
                consumer.resume(returning: first)
                added = 1
            }
            while added < elements.count, state.waiting.count < capacity, state.senders.isEmpty {
                state.waiting.append(elements[added])
                added += 1
            }
            state.wakeConsumerThread()
            return added
        }
        guard let added else { return false }
        return elements[added...].allSatisfy(sendBlocking)
    }

    /// The next element, live ones first, waiting for one; nil when finished and
    /// empty, when the calling task is cancelled, or once `until` is open — checked
    /// under the queue's lock, so once the latch is open no element reaches this
    /// consumer, and after opening it `wakeStopped()` ends a wait in progress.
    @inlinable public func next(until stop: Latch? = nil) async -> Element? {
        // The common case under load, an element waiting, without suspending.
        if !Task.isCancelled, let element = state.withLock({ stop?.isOpen == true ? nil : $0.popFirst(capacity: capacity) }) { return element }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                state.withLock { state in
                    if Task.isCancelled || stop?.isOpen == true {
                        continuation.resume(returning: nil)
                    } else if let element = state.popFirst(capacity: capacity) {
                        continuation.resume(returning: element)
                    } else if state.finished {
                        continuation.resume(returning: nil)
                    } else {
                        state.consumer = continuation
                        state.consumerStop = stop
                    }
                }
            }
        } onCancel: {
            state.withLock { state in
                state.consumer?.resume(returning: nil)
                state.consumer = nil
                state.consumerStop = nil
            }
        }
    }

    /// For a consumer on a thread of its own: every element waiting, live ones
    /// first, and how many live ones were dropped since the last take; when there
    /// is nothing, waits up to `timeout` for something (or `finish`).
    public func take(waiting timeout: Duration) -> (elements: [Element], dropped: Int) {
        let arrived = DispatchSemaphore(value: 0)
        let wait = state.withLock { state -> Bool in
            guard state.count == 0, state.dropped == 0, !state.finished else { return false }
            state.consumerThread = arrived
            return true
        }
        if wait { _ = arrived.wait(timeout: .now() + .nanoseconds(Int(timeout / .nanoseconds(1)))) }
        return state.withLock { state in
            state.consumerThread = nil
            defer { state.dropped = 0 }
            return (Self.popAll(&state, capacity: capacity), state.dropped)
        }
    }

    /// Ends the wait of a consumer whose `until` latch is open (its `next` returns
    /// nil), keeping the elements: a new consumer takes over where it stopped.
    public func wakeStopped() {
        state.withLock { state in
            guard let consumer = state.consumer, state.consumerStop?.isOpen == true else { return }
            state.consumer = nil
            state.consumerStop = nil
            consumer.resume(returning: nil)
        }
    }

    /// Takes every element waiting now, live ones first, without waiting (then admits waiting senders).
    @inlinable public func drain() -> [Element] {
        state.withLock { Self.popAll(&$0, capacity: capacity) }
    }

    @inlinable static func popAll(_ state: inout State, capacity: Int) -> [Element] {
        var all: [Element] = []
        while let element = state.popFirst(capacity: capacity) { all.append(element) }
        return all
    }

    /// No more elements: pushes and waiting sends are refused; `next` returns the
    /// elements still held, then nil.
    public func finish() {
        state.withLock { state in
            state.finished = true
            state.consumer?.resume(returning: nil)
            state.consumer = nil
            state.consumerStop = nil
            state.wakeConsumerThread()
            for sender in state.senders { sender.resume(false) }
            state.senders = []
        }
    }

    /// Elements held, in both lanes.
    @inlinable public var count: Int { state.withLock { $0.count } }

    /// True once `finish` was called.
    public var isFinished: Bool { state.withLock { $0.finished } }
}

/// How a thread blocked in `sendBlocking` learns whether its element went in.
@usableFromInline final class Handoff: Sendable {
    @usableFromInline let ready = DispatchSemaphore(value: 0)
    @usableFromInline let added = Atomic<Bool>(false)

    @usableFromInline init() {}

    @usableFromInline func resume(_ added: Bool) {
        self.added.store(added, ordering: .releasing)
        ready.signal()
    }
}

extension BoundedQueue: AsyncSequence {
    /// Iterates with `next()`: ends once the queue is finished and empty, or the task is cancelled.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let queue: BoundedQueue

        public mutating func next() async -> Element? { await queue.next() }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(queue: self) }
}

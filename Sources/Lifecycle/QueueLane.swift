/// One lane of a `BoundedQueue`: a FIFO that takes from the front without
/// moving the rest (a read index), and gives back the storage a burst made it
/// grow to once it has been emptied.
@usableFromInline struct QueueLane<Element> {
    @usableFromInline var buffer: [Element?] = []
    @usableFromInline var head = 0

    @usableFromInline init() {}

    @inlinable var count: Int { buffer.count - head }

    @inlinable mutating func append(_ element: Element) { buffer.append(element) }

    @inlinable mutating func popFirst() -> Element? {
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
        return element
    }
}

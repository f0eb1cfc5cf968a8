import Synchronization

/// The lines of one of a child's outputs, in order; ends when the child has
/// exited (or when the iterating task is cancelled).
///
/// Bounded: once `ChildOptions.bufferedBytes` of lines wait unread, the pipe is
/// no longer read, so a child that writes faster than its lines are consumed
/// blocks in `write` instead of growing the daemon's memory.
public struct ChildOutputLines: AsyncSequence, Sendable {
    public typealias Element = String

    let stream: AsyncStream<String>
    let buffer: LineBuffer

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: stream.makeAsyncIterator(), buffer: buffer) }

    /// Takes lines one at a time; each taken line makes room for more.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<String>.AsyncIterator
        let buffer: LineBuffer

        public mutating func next() async -> String? {
            guard let line = await base.next() else { return nil }
            buffer.taken(line)
            return line
        }
    }
}

/// How many bytes of lines wait unread in one output's stream, shared by the
/// supervising thread (which stops reading the pipe when it is full) and the
/// iterator (which wakes the thread when room comes back).
final class LineBuffer: Sendable {
    let limit: Int
    /// Bytes waiting; nil once abandoned.
    private let bytes = Mutex<Int?>(0)
    private let wake: @Sendable () -> Void

    init(limit: Int, wake: @escaping @Sendable () -> Void) {
        self.limit = limit
        self.wake = wake
    }

    /// True while the pipe must not be read.
    var isFull: Bool { bytes.withLock { ($0 ?? 0) >= limit } }

    /// A line goes into the stream (the `\n` counts, so blank lines do too).
    func added(_ line: String) { bytes.withLock { $0? += Self.size(line) } }

    func taken(_ line: String) {
        let roomCameBack = bytes.withLock { bytes -> Bool in
            guard let before = bytes else { return false }
            bytes = before - Self.size(line)
            return before >= limit && before - Self.size(line) < limit
        }
        if roomCameBack { wake() }
    }

    /// Nobody takes lines any more: they are dropped, and never hold the pipe back.
    func abandon() {
        bytes.withLock { $0 = nil }
        wake()
    }

    private static func size(_ line: String) -> Int { line.utf8.count + 1 }
}

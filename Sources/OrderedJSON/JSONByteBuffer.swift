/// The growable bytes a `JSONWriter` writes into. A write of N bytes checks for
/// room once (`reserve`) and then stores through a pointer, with no per-byte
/// bounds checks and none of `Array.append(contentsOf:)`'s generic path; the
/// capacity is kept when the text is cleared. Copies share the storage until one
/// of them writes (copy on write, as an array).
struct JSONByteBuffer {
    private final class Storage {
        let base: UnsafeMutablePointer<UInt8>
        let capacity: Int

        init(capacity: Int) {
            base = .allocate(capacity: capacity)
            self.capacity = capacity
        }

        deinit { base.deallocate() }
    }

    private var storage: Storage
    /// The bytes written so far.
    private(set) var count = 0

    init(capacity: Int) {
        storage = Storage(capacity: max(capacity, 16))
    }

    /// A buffer that allocates nothing until its first write (a stand-in while a
    /// writer's bytes are lent out, see `JSONWriter.writeObject`).
    init() {
        storage = Self.empty
    }

    /// Shared by every `init()` buffer. Never written: with no capacity, the first
    /// write moves a buffer to storage of its own.
    private nonisolated(unsafe) static let empty = Storage(capacity: 0)

    /// Where the next `extra` bytes go: room for them, in storage this buffer alone
    /// owns. Write them, then `commit` how many were written.
    @inline(__always)
    mutating func reserve(_ extra: Int) -> UnsafeMutablePointer<UInt8> {
        if _slowPath(count + extra > storage.capacity || !isKnownUniquelyReferenced(&storage)) { grow(extra) }
        return storage.base + count
    }

    /// Counts `written` bytes stored at the pointer the last `reserve` gave.
    @inline(__always)
    mutating func commit(_ written: Int) {
        count += written
    }

    mutating func append(_ byte: UInt8) {
        reserve(1).pointee = byte
        count += 1
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        reserve(bytes.count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    /// Forgets the bytes, keeping the capacity.
    mutating func removeAll() {
        count = 0
    }

    func withUnsafeBytes<Result, Failure: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Result) throws(Failure) -> Result {
        defer { withExtendedLifetime(storage) {} }
        return try body(UnsafeBufferPointer(start: storage.base, count: count))
    }

    /// Twice the capacity, or more when `extra` needs it, in storage of its own.
    @inline(never)
    private mutating func grow(_ extra: Int) {
        let capacity = count + extra > storage.capacity ? max(storage.capacity * 2, count + extra, 64) : storage.capacity
        let grown = Storage(capacity: capacity)
        grown.base.initialize(from: storage.base, count: count)
        storage = grown
    }
}

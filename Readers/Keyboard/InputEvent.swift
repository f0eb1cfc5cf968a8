import Glibc

/// One evdev `struct input_event` as the kernel writes it to `/dev/input/event*`:
/// the time, a type (`EV_KEY` for keys), a code (which key) and a value (for a
/// key: 0 up, 1 down, 2 autorepeat).
struct InputEvent: Sendable, Equatable {
    /// When the kernel saw it, from the record's `timeval` (the device's clock).
    var time: Duration
    var type: UInt16
    var code: UInt16
    var value: Int32

    /// `EV_SYN`, `EV_KEY`, `EV_MSC` (linux/input-event-codes.h).
    static let synchronization: UInt16 = 0x00, key: UInt16 = 0x01, miscellaneous: UInt16 = 0x04

    /// A key's values.
    static let released: Int32 = 0, pressed: Int32 = 1, repeated: Int32 = 2

    /// The size of one record on this machine: a `timeval` (two `long`s) and 2 + 2 + 4 bytes.
    static let size = MemoryLayout<timeval>.size + 8

    /// The record in `bytes` (exactly `size` of them), in this machine's byte order.
    init(record bytes: ArraySlice<UInt8>) {
        precondition(bytes.count == Self.size)
        let half = MemoryLayout<timeval>.size / 2
        var cursor = bytes.startIndex
        func integer(_ width: Int) -> UInt64 {
            defer { cursor += width }
            return (0..<width).reduce(UInt64(0)) { $0 | UInt64(bytes[cursor + $1]) << (8 * $1) }
        }
        let seconds = Int64(truncatingIfNeeded: integer(half))
        let microseconds = Int64(truncatingIfNeeded: integer(half))
        time = .seconds(seconds) + .microseconds(microseconds)
        type = UInt16(truncatingIfNeeded: integer(2))
        code = UInt16(truncatingIfNeeded: integer(2))
        value = Int32(truncatingIfNeeded: integer(4))
    }

    init(time: Duration, type: UInt16, code: UInt16, value: Int32) {
        self.time = time
        self.type = type
        self.code = code
        self.value = value
    }

    /// The record's bytes as the kernel writes them (tests write recorded streams with it).
    var record: [UInt8] {
        let half = MemoryLayout<timeval>.size / 2
        let (seconds, attoseconds) = time.components
        func bytes(_ value: UInt64, _ width: Int) -> [UInt8] { (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        return bytes(UInt64(bitPattern: seconds), half) + bytes(UInt64(bitPattern: attoseconds / 1_000_000_000_000), half)
            + bytes(UInt64(type), 2) + bytes(UInt64(code), 2) + bytes(UInt64(UInt32(bitPattern: value)), 4)
    }
}

/// Cuts a byte stream into `InputEvent` records: a read may end inside a record
/// (a pipe, a file), whose rest comes with the next one. Holds less than one record.
struct InputEventDecoder: Sendable {
    private var pending: [UInt8] = []

    /// The whole records in what was held plus `bytes`.
    mutating func events(_ bytes: ArraySlice<UInt8>) -> [InputEvent] {
        pending += bytes
        let whole = pending.count / InputEvent.size * InputEvent.size
        defer { pending.removeFirst(whole) }
        return stride(from: 0, to: whole, by: InputEvent.size).map { InputEvent(record: pending[$0..<$0 + InputEvent.size]) }
    }
}

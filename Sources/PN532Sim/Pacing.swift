/// How closely the simulator keeps the real chip's time.
public struct Pacing: Sendable, Equatable {
    /// The UART's speed: every byte in and out takes 10 bit times. Nil: bytes move at once.
    public var baudRate: Int?
    /// Whether RF exchanges take their air time, a silent tag costs the chip's
    /// retry timeout (RFConfiguration item 0x02, 51.2 ms by default), and
    /// InAutoPoll finds a newly placed tag only at its next polling slot.
    public var modelsRadio: Bool

    public init(baudRate: Int?, modelsRadio: Bool) {
        self.baudRate = baudRate
        self.modelsRadio = modelsRadio
    }

    /// A PN532 on a 115200-baud UART, as libnfc's `pn532_uart` driver uses it.
    public static let uart115200 = Pacing(baudRate: 115_200, modelsRadio: true)
    /// Everything at once, for tests: InAutoPoll still waits for a tag (or for
    /// its last polling period to end) rather than answering "none" at once.
    public static let none = Pacing(baudRate: nil, modelsRadio: false)
    /// The chip's and the radio's time without the UART's, for tests of a reader that
    /// polls without pausing: an empty field costs each InListPassiveTarget its attempts.
    public static let radio = Pacing(baudRate: nil, modelsRadio: true)

    /// Time `count` bytes take on the UART.
    func transfer(_ count: Int) -> Duration {
        guard let baudRate else { return .zero }
        return .nanoseconds(Int64(count) * 10 * 1_000_000_000 / Int64(baudRate))
    }

    /// Air time of a command and its answer at 106 kbit/s (9 bits a byte with
    /// parity, plus frame delay and, for writes, EEPROM programming).
    func radio(sent: Int, received: Int, programming: Bool) -> Duration {
        guard modelsRadio else { return .zero }
        let bits = Int64(sent + received) * 9
        return .microseconds(bits * 1_000_000 / 106_000 + 100 + (programming ? 4_100 : 0))
    }
}

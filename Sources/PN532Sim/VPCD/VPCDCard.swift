@preconcurrency import Glibc
import Dispatch
import FoundationEssentials
import Synchronization
import SystemKit
import TagKit

/// The simulator as the card in vsmartcard's virtual reader: pcscd's `vpcd`
/// driver listens on a TCP port (35963 for its first slot; `DEVICENAME
/// /dev/null:<port>` in its reader.conf), and a card is "inserted" while a
/// client is connected there. This client connects while a tag lies in its
/// field and hangs up when the field empties, answering vpcd's messages —
/// each a 2-byte big-endian length and its bytes; one byte is a control
/// (`00` power off, `01` power on, `02` reset, `04` send the ATR), more is an
/// APDU — as a PC/SC part 3 contactless reader would (`ContactlessReaderEmulation`).
/// Place and remove tags as on `PN532Simulator`; `close()` ends it.
public final class VPCDCard: SimulatedField {
    public let host: String
    public let port: UInt16
    private let field = Mutex(RFField())
    private let stopped = Atomic<Bool>(false)
    private let powerOnCount = Atomic<Int>(0)
    private let apduCount = Atomic<Int>(0)
    private let uidReadsToRefuse = Atomic<Int>(0)
    private let peripheralCommands = Mutex<[[UInt8]]>([])
    private let ended = DispatchSemaphore(value: 0)
    /// How long the field stays empty between two cards.
    static let gap: Duration = .milliseconds(500)

    /// Starts the client thread; it connects whenever a tag is placed.
    public init(host: String = "127.0.0.1", port: UInt16) {
        self.host = host
        self.port = port
        DedicatedThread.start(name: "vpcd card \(port)") { [self] in
            serve()
            ended.signal()
        }
    }

    /// How often vpcd powered the card up: pcscd does so when it notices a card inserted.
    public var powerOns: Int { powerOnCount.load(ordering: .relaxed) }

    /// How many APDUs the card has answered.
    public var apdus: Int { apduCount.load(ordering: .relaxed) }

    /// The LED/buzzer pseudo-APDUs the card's reader was sent, oldest first (at most
    /// `peripheralLimit`, the oldest given up first): what a person at the reader saw and heard.
    public var peripheralLog: [[UInt8]] { peripheralCommands.withLock { $0 } }

    /// The LED/buzzer commands received so far, forgotten as they are returned.
    public func takePeripheralLog() -> [[UInt8]] {
        peripheralCommands.withLock { log in
            defer { log.removeAll() }
            return log
        }
    }

    static let peripheralLimit = 256

    /// The next `count` GET DATA (UID) commands fail with `63 00`, as a reader answers
    /// when the card in its field stays silent (still settling, or half out of range).
    public func refuseUIDReads(_ count: Int) { uidReadsToRefuse.store(count, ordering: .relaxed) }

    public func withField<T>(_ body: (inout RFField) -> T) -> T { field.withLock { body(&$0) } }

    /// Hangs up and ends the thread (within one poll interval).
    public func close() {
        guard !stopped.exchange(true, ordering: .sequentiallyConsistent) else { return }
        ended.wait()
    }

    deinit { stopped.store(true, ordering: .sequentiallyConsistent) }

    // MARK: - The connection

    private func serve() {
        var socket: Int32 = -1
        /// The UID of the card vpcd has now: another tag in its place is a removal and an insertion.
        var connectedUID: [UInt8]?
        var lastHangUp: ContinuousClock.Instant?
        var reader = ContactlessReaderEmulation()
        /// The tag left by giving its last answer (`remove(uid:afterExchanges:)`, a tag pulled away
        /// mid-read): the card hangs up on vpcd's next message, as a reader learns of it — the next
        /// APDU of the read goes unanswered. A tag taken away between exchanges hangs up at once.
        var leftMidExchange = false
        defer { if socket >= 0 { Glibc.close(socket) } }
        func hangUp() {
            Glibc.close(socket)
            socket = -1
            leftMidExchange = false
            lastHangUp = .now
            field.withLock { $0.resetAll() }
        }
        while !stopped.load(ordering: .sequentiallyConsistent) {
            let first = field.withLock { $0.entries.first?.tag.activation.uid }
            let inField = first != nil
            if inField && socket < 0 {
                // A tag swapped for another leaves the field empty for one of pcscd's
                // presence polls (400 ms), as a hand does: pcscd sees a removal, then an insertion.
                if let hungUp = lastHangUp, ContinuousClock.now - hungUp < Self.gap {
                    usleep(20_000)
                    continue
                }
                socket = connect()
                connectedUID = first
                if socket < 0 { usleep(50_000) }
                continue
            }
            if socket >= 0, first != connectedUID, first != nil || !leftMidExchange {
                hangUp()
                continue
            }
            guard socket >= 0 else {
                usleep(20_000)
                continue
            }
            var pending = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&pending, 1, 20) > 0 else { continue }
            guard let message = receive(socket) else {
                // vpcd hung up (pcscd stopped): connect again while a tag lies there.
                Glibc.close(socket)
                socket = -1
                continue
            }
            switch leftMidExchange ? .hangUp : reply(to: message, reader: &reader) {
            case .send(let answer):
                if !send(answer, on: socket) {
                    Glibc.close(socket)
                    socket = -1
                } else if field.withLock({ $0.entries.isEmpty }) {
                    leftMidExchange = true
                }
            case .silent:
                break
            case .hangUp:
                hangUp()
            }
        }
    }

    /// What the card does with one message from vpcd.
    private enum Reply {
        case send([UInt8])
        /// A control message that has no answer.
        case silent
        /// The card is gone: vpcd learns it from the link closing with its message unanswered.
        case hangUp
    }

    private func reply(to message: [UInt8], reader: inout ContactlessReaderEmulation) -> Reply {
        field.withLock { field -> Reply in
            guard !field.entries.isEmpty else { return .hangUp }
            if message.count == 1 {
                switch message[0] {
                case 0x04: return .send(ContactlessReaderEmulation.atr(for: field.entries[0].tag))
                default:
                    if message[0] == 0x01 { powerOnCount.add(1, ordering: .relaxed) }
                    field.resetAll()
                    return .silent
                }
            }
            let refused = message.starts(with: [0xFF, 0xCA]) && uidReadsToRefuse.load(ordering: .relaxed) > 0
            if refused { uidReadsToRefuse.subtract(1, ordering: .relaxed) }
            if ContactlessReaderEmulation.isPeripheralCommand(message) {
                peripheralCommands.withLock { log in
                    if log.count >= Self.peripheralLimit { log.removeFirst() }
                    log.append(message)
                }
            }
            let response = refused ? [0x63, 0x00] : reader.respond(to: message, tag: &field.entries[0].tag)
            apduCount.add(1, ordering: .relaxed)
            field.answered(at: 0)
            return .send(response)
        }
    }

    private func connect() -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return -1 }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        inet_pton(AF_INET, host, &address.sin_addr)
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard status == 0 else {
            Glibc.close(fd)
            return -1
        }
        return fd
    }

    private func receive(_ socket: Int32) -> [UInt8]? {
        guard let header = read(socket, count: 2) else { return nil }
        return read(socket, count: Int(header[0]) << 8 | Int(header[1]))
    }

    private func read(_ socket: Int32, count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return bytes }
        // vpcd writes a message's length and its bytes separately, and Nagle holds the bytes until the length is
        // acknowledged: a delayed ACK made every APDU wait 40 ms (a Classic write took 7 s). Acknowledge at once
        // (the kernel turns quick ACKs off again by itself, so ask before every read).
        var on: Int32 = 1
        _ = setsockopt(socket, Int32(IPPROTO_TCP), TCP_QUICKACK, &on, socklen_t(MemoryLayout<Int32>.size))
        let received = bytes.withUnsafeMutableBytes { recv(socket, $0.baseAddress, count, Int32(MSG_WAITALL)) }
        return received == count ? bytes : nil
    }

    private func send(_ bytes: [UInt8], on socket: Int32) -> Bool {
        let framed = [UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes
        return framed.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, framed.count, Int32(MSG_NOSIGNAL)) } == framed.count
    }
}

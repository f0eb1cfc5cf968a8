import Foundation
import Synchronization
import TagReader

@testable import PN532Sim

/// A pseudo-terminal relaying bytes to and from another one (the simulator's),
/// which a test can freeze: while frozen, what either side sends is dropped, as
/// with a reader that hangs without closing its device. It can freeze right after
/// relaying the host's next command, so the chip's ACK never arrives (libnfc waits
/// for it without a timeout or an abort during InAutoPoll). It can also garble the
/// next frame the simulator sends (one flipped byte: a bad checksum), or hold the
/// chip's next ACK and answer back for a while (a host too busy to read them in
/// time), delivering them late.
final class FreezableLink: Sendable {
    struct Failure: Error {}

    private final class Switches: Sendable {
        let frozen = Atomic<Bool>(false)
        let running = Atomic<Bool>(true)
        let garble = Atomic<Bool>(false)
        let freezeAfterCommand = Atomic<Bool>(false)
        /// Milliseconds to hold the chip's next bytes back; 0: none.
        let lateBy = Atomic<Int>(0)
    }

    /// The pty path libnfc opens (`pn532_uart:` + this).
    let devicePath: String
    private let switches = Switches()

    init(to target: String) throws {
        let terminal = try PseudoTerminal()
        devicePath = terminal.devicePath
        let simulator = open(target, O_RDWR | O_NOCTTY)
        guard simulator >= 0 else { throw Failure() }
        var settings = termios()
        tcgetattr(simulator, &settings)
        cfmakeraw(&settings)
        tcsetattr(simulator, TCSANOW, &settings)
        let switches = switches
        Thread.detachNewThread {
            let host = terminal.chipSide
            var fds = [pollfd(fd: host, events: Int16(POLLIN), revents: 0), pollfd(fd: simulator, events: Int16(POLLIN), revents: 0)]
            var buffer = [UInt8](repeating: 0, count: 4096)
            // The chip's bytes held back, and when they go to the host.
            var held: (bytes: [UInt8], until: ContinuousClock.Instant)?
            while switches.running.load(ordering: .relaxed) {
                if let late = held, ContinuousClock.now >= late.until {
                    _ = write(host, late.bytes, late.bytes.count)
                    held = nil
                }
                guard poll(&fds, 2, held == nil ? 50 : 5) >= 0 else { continue }
                for (from, to) in [(0, simulator), (1, host)] where fds[from].revents & Int16(POLLIN) != 0 {
                    let count = read(fds[from].fd, &buffer, buffer.count)
                    // The chip's ACK is 6 bytes; the first longer chunk is an answer frame.
                    if from == 1, count > 6, switches.garble.exchange(false, ordering: .relaxed) { buffer[count - 3] ^= 0x5A }
                    if from == 1, count > 0, held == nil, case let milliseconds = switches.lateBy.exchange(0, ordering: .relaxed), milliseconds > 0 {
                        held = ([], ContinuousClock.now + .milliseconds(milliseconds))
                    }
                    if from == 1, count > 0, held != nil {
                        held?.bytes += buffer[..<count]
                        continue
                    }
                    if count > 0, !switches.frozen.load(ordering: .relaxed) { _ = write(to, buffer, count) }
                    if from == 0, count > 0, switches.freezeAfterCommand.exchange(false, ordering: .relaxed) {
                        switches.frozen.store(true, ordering: .relaxed)
                    }
                }
            }
            terminal.close()
            Glibc.close(simulator)
        }
    }

    func garbleNextAnswer() { switches.garble.store(true, ordering: .relaxed) }
    /// Holds what the chip sends next (its ACK and answer) back for `delay`, then delivers it.
    func delayNextAnswer(by delay: Duration) { switches.lateBy.store(Int(delay.milliseconds), ordering: .relaxed) }
    func freeze() { switches.frozen.store(true, ordering: .relaxed) }
    /// Relays the host's next command to the simulator, then freezes: its ACK and answer are lost.
    func freezeAfterNextCommand() { switches.freezeAfterCommand.store(true, ordering: .relaxed) }
    func thaw() { switches.frozen.store(false, ordering: .relaxed) }
    func close() { switches.running.store(false, ordering: .relaxed) }
}

@preconcurrency import Glibc
import Foundation
@testable import PN532Sim

/// A host speaking raw frames to the simulator's pseudo-terminal, for the
/// protocol cases libnfc never produces (bad checksums, unknown commands, aborts).
final class RawHost {
    struct Failure: Error, CustomStringConvertible { var description: String }

    private let fd: Int32
    private var decoder = PN532FrameDecoder(frameIdentifier: PN532Frame.chipToHost)
    private var received: [DecodedFrame] = []

    init(path: String) throws {
        fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else { throw Failure(description: "cannot open \(path)") }
        var settings = termios()
        tcgetattr(fd, &settings)
        cfmakeraw(&settings)
        tcsetattr(fd, TCSANOW, &settings)
    }

    deinit { close(fd) }

    func send(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    func send(command: [UInt8]) {
        send(PN532Frame.encode(tfi: PN532Frame.hostToChip, command))
    }

    /// The next frame from the chip; throws after `timeout` seconds without one.
    func nextFrame(timeout: Double = 10) throws -> DecodedFrame {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while received.isEmpty {
            let remaining = Int32(max(0, deadline.timeIntervalSinceNow * 1000))
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, remaining) > 0 else { throw Failure(description: "no frame from the simulator within \(timeout) s") }
            var buffer = [UInt8](repeating: 0, count: 1024)
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 { received += decoder.feed(buffer.prefix(count)) }
        }
        return received.removeFirst()
    }

    /// True when nothing arrives within `seconds`.
    func staysQuiet(for seconds: Double) throws -> Bool {
        if !received.isEmpty { return false }
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, Int32(seconds * 1000)) == 0
    }

    /// Sends `command`, expects the ACK, and returns the response's data (after the response code).
    func exchange(_ command: [UInt8]) throws -> [UInt8] {
        send(command: command)
        guard try nextFrame() == .ack else { throw Failure(description: "no ACK for \(command)") }
        guard case .command(let response) = try nextFrame(), response.first == command[0] + 1 else {
            throw Failure(description: "no response to \(command)")
        }
        return Array(response.dropFirst())
    }
}

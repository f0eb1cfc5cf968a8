import NDEF
import Testing
import TagKit
@testable import PN532Sim

/// The chip's side of the UART protocol, byte for byte over the pseudo-terminal.
@Suite("PN532 protocol over the pty")
struct ProtocolTests {
    static let uid: [UInt8] = [0x04, 0xA2, 0x24, 0xB2, 0xC3, 0x5E, 0x80]

    @Test("a frame with a bad checksum gets a NACK and the chip carries on")
    func badChecksum() throws {
        let sim = try PN532Simulator(pacing: .none)
        defer { sim.close() }
        let host = try RawHost(path: sim.devicePath)
        var frame = PN532Frame.encode(tfi: PN532Frame.hostToChip, [0x02])
        frame[frame.count - 2] &+= 1
        host.send(frame)
        #expect(try host.nextFrame() == .nack)
        #expect(try host.exchange([0x02]) == PN532Chip.firmwareVersion)
        #expect(sim.counters.malformedFrames == 1 && sim.counters.nacksSent == 1)
    }

    @Test("an unknown command is ACKed and answered with the error frame, not silence")
    func unknownCommand() throws {
        let sim = try PN532Simulator(pacing: .none)
        defer { sim.close() }
        let host = try RawHost(path: sim.devicePath)
        host.send(command: [0x8C, 0x00])
        #expect(try host.nextFrame() == .ack)
        #expect(try host.nextFrame() == .applicationError)
        #expect(sim.counters.syntaxErrors == 1 && sim.counters.commands["0x8C"] == 1)
    }

    @Test("registers remember what was written; Diagnose echoes; a NACK repeats the last answer")
    func registersAndDiagnose() throws {
        let sim = try PN532Simulator(pacing: .none)
        defer { sim.close() }
        let host = try RawHost(path: sim.devicePath)
        #expect(try host.exchange([0x08, 0x63, 0x3D, 0x07, 0x63, 0x05, 0x42]) == [])
        #expect(try host.exchange([0x06, 0x63, 0x3D, 0x63, 0x05, 0x63, 0x02]) == [0x07, 0x42, 0x80])
        #expect(try host.exchange([0x00, 0x00] + Array("libnfc".utf8)) == [0x00] + Array("libnfc".utf8))
        host.send(PN532Frame.nack)
        #expect(try host.nextFrame() == .command([0x01, 0x00] + Array("libnfc".utf8)))
    }

    @Test("an ACK aborts a running InAutoPoll; a tag placed during another poll ends it")
    func autoPollAbortAndArrival() throws {
        let sim = try PN532Simulator(pacing: .none)
        defer { sim.close() }
        let host = try RawHost(path: sim.devicePath)
        host.send(command: [0x60, 0xFF, 0x01, 0x10])
        #expect(try host.nextFrame() == .ack)
        host.send(PN532Frame.ack)
        #expect(try host.staysQuiet(for: 0.3))
        #expect(try host.exchange([0x02]) == PN532Chip.firmwareVersion)
        #expect(sim.counters.abortedCommands == 1)

        host.send(command: [0x60, 0xFF, 0x01, 0x20, 0x10])
        #expect(try host.nextFrame() == .ack)
        sim.place(try Type2Tag(.ntag213, uid: Self.uid, message: []))
        let answer = try host.nextFrame()
        #expect(answer == .command([0x61, 0x01, 0x10, 0x0C, 0x01, 0x00, 0x44, 0x00, 0x07] + Self.uid))
    }

    /// A reader that lists the field without pausing (`polling: fast`) relies on this:
    /// the chip retries while the host waits, so a tag placed meanwhile answers that
    /// same command. It used to be looked for once, at the start, and missed.
    @Test("a tag placed while InListPassiveTarget retries answers one of its attempts")
    func listPassiveFindsATagPlacedDuringItsAttempts() throws {
        let sim = try PN532Simulator(pacing: .radio)
        defer { sim.close() }
        let host = try RawHost(path: sim.devicePath)
        // MxRtyPassiveActivation 0xFE: 255 attempts, over a second with no tag.
        #expect(try host.exchange([0x32, 0x05, 0xFF, 0x01, 0xFE]) == [])
        host.send(command: [0x4A, 0x01, 0x00])
        #expect(try host.nextFrame() == .ack)
        sim.place(try Type2Tag(.ntag213, uid: Self.uid, message: []))
        #expect(try host.nextFrame() == .command([0x4B, 0x01, 0x01, 0x00, 0x44, 0x00, 0x07] + Self.uid))
        #expect(sim.counters.activations == 1)
        // Finite retries with nothing in the field end with no target.
        sim.removeAll()
        #expect(try host.exchange([0x32, 0x05, 0xFF, 0x01, 0x00]) == [])
        #expect(try host.exchange([0x4A, 0x01, 0x00]) == [0x00])
    }

    @Test("two tags in the field: InListPassiveTarget with MaxTg 2 activates both; each answers on its Tg")
    func twoTags() throws {
        let sim = try PN532Simulator(pacing: .none)
        defer { sim.close() }
        let other: [UInt8] = [0x04, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06]
        sim.place([try Type2Tag(.ntag213, uid: Self.uid, message: []), try Type2Tag(.ntag215, uid: other, message: [])])
        let host = try RawHost(path: sim.devicePath)
        let targets = try host.exchange([0x4A, 0x02, 0x00])
        #expect(targets == [0x02, 0x01, 0x00, 0x44, 0x00, 0x07] + Self.uid + [0x02, 0x00, 0x44, 0x00, 0x07] + other)
        #expect(try host.exchange([0x40, 0x01, 0x30, 0x00]).prefix(4) == [0x00, 0x04, 0xA2, 0x24])
        #expect(try host.exchange([0x40, 0x02, 0x30, 0x03]).prefix(5) == [0x00, 0xE1, 0x10, 0x3E, 0x00])
    }

    @Test("a removed tag times out (status 01); a halted one is not listed until the field cycles")
    func removalAndHalt() throws {
        let sim = try PN532Simulator(pacing: .none)
        defer { sim.close() }
        sim.place(try Type2Tag(.ntag213, uid: Self.uid, message: []))
        let host = try RawHost(path: sim.devicePath)
        #expect(try host.exchange([0x32, 0x05, 0x00, 0x01, 0x02]) == [])  // finite retries
        #expect(try host.exchange([0x4A, 0x01, 0x00]).first == 0x01)
        #expect(try host.exchange([0x44, 0x00]) == [0x00])
        #expect(try host.exchange([0x4A, 0x01, 0x00]) == [0x00])
        #expect(try host.exchange([0x32, 0x01, 0x00]) == [])
        #expect(try host.exchange([0x32, 0x01, 0x01]) == [])
        #expect(try host.exchange([0x4A, 0x01, 0x00]).first == 0x01)
        sim.removeAll()
        #expect(try host.exchange([0x40, 0x01, 0x30, 0x04]) == [0x01])
        #expect(sim.counters.tagTimeouts == 1)
    }

    @Test("an ISO-DEP answer longer than a normal frame comes back in an extended frame")
    func extendedFrame() throws {
        let sim = try PN532Simulator(pacing: .none)
        defer { sim.close() }
        let message = NDEFMessage(records: [.mime("text/plain", [UInt8](repeating: 0x61, count: 400))]).encoded()
        sim.place(try Type4Tag(uid: Self.uid, message: message))
        let host = try RawHost(path: sim.devicePath)
        #expect(try host.exchange([0x4A, 0x01, 0x00]).suffix(6) == [0x06, 0x75, 0x77, 0x81, 0x02, 0x80])
        #expect(try host.exchange([0x40, 0x01, 0x00, 0xA4, 0x04, 0x00, 0x07] + Type4Tag.applicationID + [0x00]) == [0x00, 0x90, 0x00])
        #expect(try host.exchange([0x40, 0x01, 0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04]) == [0x00, 0x90, 0x00])
        let read = try host.exchange([0x40, 0x01, 0x00, 0xB0, 0x00, 0x00, 0x00])
        #expect(read.count == 1 + 256 + 2)
        #expect(Array(read[3..<(256 + 1)]) == Array(message.prefix(254)))
    }
}

extension ProtocolTests {
    @Test("a tag told to leave after two exchanges answers two, then times out and is gone")
    func leavesMidRead() throws {
        let sim = try PN532Simulator(pacing: .none)
        defer { sim.close() }
        sim.place(try Type2Tag(.ntag213, uid: Self.uid, message: []))
        let host = try RawHost(path: sim.devicePath)
        #expect(try host.exchange([0x4A, 0x01, 0x00]).first == 0x01)
        #expect(sim.remove(uid: Self.uid, afterExchanges: 2))
        #expect(try host.exchange([0x40, 0x01, 0x30, 0x04]).first == 0x00)
        #expect(try host.exchange([0x40, 0x01, 0x30, 0x08]).first == 0x00)
        #expect(sim.tags.isEmpty)
        #expect(try host.exchange([0x40, 0x01, 0x30, 0x0C]) == [0x01])
        let control = SimulatorControl(simulator: sim)
        _ = control.respond(to: #"{"op":"place","type":"ntag213","uid":"04a224b2c35e80"}"#)
        #expect(control.respond(to: #"{"op":"remove","uid":"04a224b2c35e80","afterExchanges":1}"#) == #"{"ok":true,"removed":1}"#)
        #expect(sim.tags.count == 1)
    }
}

import Foundation
import NDEF
import PN532Sim
import TagCore
import TagKit
import TagRuntime
import Testing
import TestSupport

@testable import ReaderPCSC
@testable import TagReader

/// A tap you can feel: what a PC/SC reader is told for each moment of a tap,
/// byte for byte, as the reader behind vpcd (the simulator's card) receives it.
@Suite(.serialized) struct PCSCFeedbackTests {
    static let success = FeedbackPattern(color: .green, blinks: 1, on: .milliseconds(200), off: .milliseconds(100), beep: true)
    static let failure = FeedbackPattern(color: .red, blinks: 2, on: .milliseconds(100), off: .milliseconds(100), beep: true)
    static let arrival = FeedbackPattern(color: .orange, blinks: 1, on: .milliseconds(100), off: .milliseconds(100), beep: false)

    /// A reader on a vpcd slot with `feedback`, the card in its field, and the feedback log once the tag arrived;
    /// `body` gets the card and the board whose moments the reader shows.
    static func withReader(
        name: String, model: ReaderFeedback.Model, beepOnDetect: Bool = true, arrivalPattern: FeedbackPattern? = nil,
        _ body: (VPCDCard, FeedbackBoard) async throws -> Void
    ) async throws {
        try await PCSCDaemon.shared.get().withCard { card, slot in
            try await watch(card, device: slot.device, name: name, model: model, beepOnDetect: beepOnDetect, arrivalPattern: arrivalPattern, body)
        }
    }

    private static func watch(
        _ card: VPCDCard, device: String, name: String, model: ReaderFeedback.Model, beepOnDetect: Bool, arrivalPattern: FeedbackPattern?,
        _ body: (VPCDCard, FeedbackBoard) async throws -> Void
    ) async throws {
        var config = ReaderConfig.testing(name: name, device: device)
        var patterns: [ReaderFeedback.Moment: FeedbackPattern] = [.success: success, .failure: failure, .noMatch: failure, .refused: failure]
        patterns[.arrival] = arrivalPattern
        config.feedback = ReaderFeedback(model: model, patterns: patterns)
        config.beepOnDetect = beepOnDetect
        let board = FeedbackBoard()
        let supervisor = ReaderSupervisor(readers: [config], drivers: .underTest, feedback: board)
        defer { supervisor.stop() }
        let log = EventLog(supervisor)
        try await log.wait(for: 1)
        card.place(try Type2Tag(.ntag215, uid: [0x04, 0xA2, 0x24, 0xB2, 0xC3, 0x5E, 0x80], message: NDEFMessage(records: [.uri("https://example.com/a")]).encoded()))
        #expect(try await log.kinds(2) == ["reader.connected", "tag.arrived 04a224b2c35e80"])
        try await body(card, board)
    }

    /// Waits until the card's reader received `count` LED/buzzer commands and returns them as hex.
    static func commands(_ card: VPCDCard, count: Int) async throws -> [String] {
        let deadline = ContinuousClock.now + .seconds(20)
        while card.peripheralLog.count < count {
            try #require(ContinuousClock.now < deadline, "the reader got \(card.peripheralLog.map { Hex.string($0) }), waiting for \(count)")
            try await Task.sleep(for: .milliseconds(5))
        }
        return card.peripheralLog.map { Hex.string($0) }
    }

    @Test func anACR122UShowsEachOutcomeWithItsPseudoAPDU() async throws {
        try await Self.withReader(name: "acr122u-outcomes", model: .acr122u, arrivalPattern: Self.arrival) { card, board in
            // Arrival: orange (both LEDs) once for 100 ms, no buzzer; shown without waiting for routing.
            let got1 = try await Self.commands(card, count: 1)
            #expect(got1 == ["ff0040f00401010100"])
            board.post(.success, reader: "acr122u-outcomes")
            let got2 = try await Self.commands(card, count: 2)
            #expect(got2.last == "ff0040a00402010101")
            board.post(.failure, reader: "acr122u-outcomes")
            let got3 = try await Self.commands(card, count: 3)
            #expect(got3.last == "ff0040500401010201")
            board.post(.noMatch, reader: "acr122u-outcomes")
            board.post(.refused, reader: "acr122u-outcomes")
            let got5 = try await Self.commands(card, count: 5)
            #expect(got5.suffix(2) == ["ff0040500401010201", "ff0040500401010201"])
        }
    }

    @Test func beepOnDetectFalseSilencesTheReaderBeforeAnythingElse() async throws {
        try await Self.withReader(name: "acr122u-quiet", model: .acr122u, beepOnDetect: false) { card, board in
            let got1 = try await Self.commands(card, count: 1)
            #expect(got1 == ["ff00520000"])
            board.post(.success, reader: "acr122u-quiet")
            let got2 = try await Self.commands(card, count: 2)
            #expect(got2 == ["ff00520000", "ff0040a00402010101"])
            // `tagrouter simulate`'s control socket shows the same, and forgets it when asked.
            let control = SimulatorControl(card: card)
            #expect(control.respond(to: #"{"op":"feedback","clear":true}"#) == #"{"feedback":["ff00520000","ff0040a00402010101"],"ok":true}"#)
            #expect(control.respond(to: #"{"op":"feedback"}"#) == #"{"feedback":[],"ok":true}"#)
        }
    }

    /// vpcd refuses `SCardControl` as libccid does without `ifdDriverOptions`: the
    /// ACR1252U's escape commands give way to the pseudo-APDUs while the card is there.
    @Test func anACR1252UWhoseDriverRefusesEscapesFallsBackToPseudoAPDUs() async throws {
        try await Self.withReader(name: "acr1252u-fallback", model: .acr1252u, beepOnDetect: false) { card, board in
            let got1 = try await Self.commands(card, count: 1)
            #expect(got1 == ["ff00520000"])
            board.post(.failure, reader: "acr1252u-fallback")
            let got2 = try await Self.commands(card, count: 2)
            #expect(got2 == ["ff00520000", "ff0040500401010201"])
        }
    }

    @Test func aReaderOfNoKnownModelIsToldNothing() async throws {
        try await Self.withReader(name: "unknown-model", model: .auto, beepOnDetect: false) { card, board in
            board.post(.success, reader: "unknown-model")
            board.post(.failure, reader: "unknown-model")
            // A later exchange proves the posts had their chance: the UID read of a second card.
            let apdus = card.apdus
            card.replaceAll(with: [try Type2Tag(.ntag215, uid: [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66], message: [])])
            try await ReaderBehaviourTests.waitUntil { card.apdus > apdus }
            #expect(card.peripheralLog.isEmpty)
        }
    }

    @Test func escapeCommandsOfTheACR1252UAndACR1552U() {
        for model in [ReaderFeedback.Model.acr1252u, .acr1552u] {
            #expect(FeedbackCommand.show(Self.failure, on: model, escape: true) == [
                .escape([0xE0, 0x00, 0x00, 0x29, 0x01, 0x01]), .escape([0xE0, 0x00, 0x00, 0x28, 0x01, 0x0A]), .pause(.milliseconds(100)),
                .escape([0xE0, 0x00, 0x00, 0x29, 0x01, 0x00]), .pause(.milliseconds(100)),
                .escape([0xE0, 0x00, 0x00, 0x29, 0x01, 0x01]), .escape([0xE0, 0x00, 0x00, 0x28, 0x01, 0x0A]), .pause(.milliseconds(100)),
                .escape([0xE0, 0x00, 0x00, 0x29, 0x01, 0x00]),
            ])
            #expect(FeedbackCommand.silenceDetection(on: model, escape: true) == [.escape([0xE0, 0x00, 0x00, 0x21, 0x01, 0x87])])
        }
        #expect(FeedbackCommand.escapeControlCode == 0x4200_0DAC)
    }

    @Test func theModelComesFromTheReaderName() {
        #expect(FeedbackCommand.resolve(.auto, readerName: "ACS ACR122U PICC Interface 00 00") == .acr122u)
        #expect(FeedbackCommand.resolve(.auto, readerName: "ACS ACR1252 Dual Reader [ACR1252 Dual Reader PICC] 00 00") == .acr1252u)
        #expect(FeedbackCommand.resolve(.auto, readerName: "ACS ACR1552 1S CL Reader PICC 00 00") == .acr1552u)
        #expect(FeedbackCommand.resolve(.auto, readerName: "Identiv uTrust 3700 F CL Reader 00 00") == .none)
        #expect(FeedbackCommand.resolve(.acr122u, readerName: "Virtual PCD 00 00") == .acr122u)
    }
}

import Testing
import TagKit
@testable import PN532Sim

/// The chip takes whatever a host sends: random commands with every tag type in
/// the field never trap, and every answer is an information or error frame.
@Suite("PN532 chip robustness")
struct ChipRobustnessTests {
    @Test("random commands and parameters never trap")
    func randomCommands() throws {
        var field = RFField()
        field.place(try Type2Tag(.ntag213, uid: [4, 1, 2, 3, 4, 5, 6], message: []))
        field.place(try Type4Tag(uid: [4, 9, 9, 9, 9, 9, 9], message: []))
        field.place(try MifareClassicTag(uid: [1, 2, 3, 4], message: []))
        field.place(try Type3Tag(idm: [1, 2, 3, 4, 5, 6, 7, 8], message: []))
        field.place(try Type1Tag(uid: [1, 7, 7, 7, 7, 7, 7], message: []))
        var chip = PN532Chip(pacing: .none)
        var generator = SystemRandomNumberGenerator()
        let codes = PN532Command.allCases.map(\.rawValue) + [0x8C, 0xFF, 0x56]
        var answered = 0
        for round in 0..<20_000 {
            let code = codes.randomElement(using: &generator)!
            let params = (0..<Int.random(in: 0...20, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator) & (round.isMultiple(of: 2) ? 0x0F : 0xFF)
            }
            switch chip.execute([code] + params, field: &field, now: .now) {
            case .reply, .syntaxError: answered += 1
            case .waiting(var pending):
                _ = chip.resume(&pending, field: &field, now: .now + .seconds(3600))
            }
        }
        #expect(answered > 10_000)
    }
}

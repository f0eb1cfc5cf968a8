import PN532Sim
import TagCore
import Testing
import TestSupport

@testable import TagReader

/// A reader whose config does not use `tag.genuine` (`originality_check: auto`
/// resolved to no, or `never`) does not ask for the signature: no READ_SIG, and
/// the event has neither `signature` nor `genuine`. Asked, it has both
/// (`theOriginalitySignatureSaysWhetherTheChipIsGenuine`).
extension ReaderBehaviourTests {
    @Test(arguments: [false, true])
    func theSignatureIsReadOnlyWhenAskedFor(asked: Bool) async throws {
        let sim = try PN532Simulator(pacing: .none)
        defer { sim.close() }
        var config = ReaderConfig.testing(name: "desk", device: sim.connstring)
        config.readsSignature = asked
        let supervisor = ReaderSupervisor(readers: [config], drivers: .underTest)
        defer { supervisor.stop() }
        let log = EventLog(supervisor)
        try await log.wait(for: 1)
        sim.place(try Self.signed(Self.signedUID, Self.publishedSignature))
        let arrived = try await log.wait(for: 2)[1]
        #expect(arrived.uri == "https://example.com/sticker")
        #expect(arrived.tag?.genuine == (asked ? .genuine : nil))
        #expect(arrived.tag?.signature == (asked ? Self.publishedSignature : nil))
        #expect(arrived.jsonText.contains("genuine") == asked)
        sim.removeAll()
        #expect(try await log.kinds(3).last == "tag.removed 04ab87f2ca1190")
    }
}

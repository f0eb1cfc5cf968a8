import PN532Sim
import TagCore
import Testing

@testable import TagReader

/// What a tap costs the chip: every PN532 command is a round of serial reads, writes and
/// waits in the daemon, the most of its CPU per tap.
@Suite(.serialized) struct TapCommandsTests {
    /// An inventory (how a held tag's removal is seen) sends the field reset's two
    /// RFConfiguration frames and one InListPassiveTarget per modulation (two for type A
    /// with a tag there), not the RFConfiguration `nfc_initiator_list_passive_targets`
    /// sends before each listing: whatever the timing, no more RFConfiguration than listings.
    @Test func anInventorySendsNoRFConfigurationPerListing() async throws {
        let bench = try ReaderLoopTests.Bench()
        defer { bench.close() }
        let (sim, log) = (bench.sim, bench.log)
        try await log.wait(for: 1)
        let tag = try ReaderLoopTests.ntag215(ReaderLoopTests.uidA, [.uri("https://example.com/a")])
        let connected = sim.counters.commands
        for tap in 0..<3 {
            sim.place(tag)
            try await log.wait(for: 2 + 2 * tap)
            sim.removeAll()
            try await log.wait(for: 3 + 2 * tap)
        }
        let tapped = sim.counters.commands
        let listings = tapped["InListPassiveTarget", default: 0] - connected["InListPassiveTarget", default: 0]
        let configurations = tapped["RFConfiguration", default: 0] - connected["RFConfiguration", default: 0]
        #expect(listings >= 3 * 3, "one inventory per tap at least, to see the removal")
        #expect(configurations <= listings, "\(configurations) RFConfiguration for \(listings) InListPassiveTarget")
        #expect(try await log.kinds(7).filter { $0.hasPrefix("tag.") }.count == 6)
    }
}

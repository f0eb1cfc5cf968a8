import NDEF
import PN532Sim
import TagCore
import TagKit
import Testing

/// `tag.genuine` as the readers give it: the simulated NTAG answers READ_SIG with
/// a real tag's published signature (github.com/aramix/nxp-originality-verifier,
/// its test vector), so the check runs on real NXP data end to end.
extension ReaderBehaviourTests {
    static let signedUID: [UInt8] = [0x04, 0xAB, 0x87, 0xF2, 0xCA, 0x11, 0x90]
    static let publishedSignature = TagUID("67b1750bcceb1174f9a33bf20e0226551a6366939b31f949848c3c087350fa90")!.bytes

    static func signed(_ uid: [UInt8], _ signature: [UInt8]?) throws -> Type2Tag {
        var tag = try ntag215(uid, [.uri("https://example.com/sticker")])
        tag.signature = signature
        return tag
    }

    @Test(arguments: Backend.allCases)
    func theOriginalitySignatureSaysWhetherTheChipIsGenuine(backend: Backend) async throws {
        let reader = try await Reader(backend)
        defer { reader.close() }
        let (supervisor, log) = reader.watch()
        defer { supervisor.stop() }
        try await log.wait(for: 1)
        let tags = [
            try Self.signed(Self.signedUID, Self.publishedSignature),  // the real tag's UID and signature
            try Self.signed(Self.uidA, Self.publishedSignature),  // its signature copied to another UID
            try Self.signed(Self.uidB, nil),  // a chip that NAKs READ_SIG
        ]
        for (index, tag) in tags.enumerated() {
            reader.field.place(tag)
            try await log.wait(for: 2 + 2 * index)
            reader.field.removeAll()
            try await log.wait(for: 3 + 2 * index)
        }
        let events = log.events
        let arrivals = events.filter { $0.kind == .tagArrived }
        #expect(arrivals.map { $0.uri } == Array(repeating: "https://example.com/sticker", count: 3), "the NDEF read is not spoilt")
        switch backend {
        case .libnfc, .libnfcFast:
            #expect(arrivals.map { $0.tag?.genuine } == [.genuine, .notGenuine, .unknown])
            #expect(arrivals.map { $0.tag?.signature } == [Self.publishedSignature, Self.publishedSignature, nil])
            // A removal carries its arrival's verdict (for `require_genuine` and routes on `tag.removed`).
            #expect(events.filter { $0.kind == .tagRemoved }.map { $0.tag?.genuine } == [.genuine, .notGenuine, .unknown])
            #expect(arrivals[0].jsonText.contains(#""genuine":true"#))
        case .pcsc:
            // PC/SC's storage-card commands have no READ_SIG: the chip should have one, but it cannot be asked.
            #expect(arrivals.map { $0.tag?.genuine } == [.unknown, .unknown, .unknown])
        }
        // An original Ultralight has no signature: no check, no member.
        reader.field.place(try Type2Tag(.ultralight, uid: Self.signedUID, message: NDEFMessage(records: [.text("plain")]).encoded()))
        let plain = try await log.wait(for: 8)[7]
        #expect(plain.tag?.type == "mifare-ultralight")
        #expect(plain.tag?.genuine == nil)
        #expect(!plain.jsonText.contains("genuine"))
    }

    /// READ_SIG comes last and its silence is `unknown`: a tag that leaves just before it
    /// still arrives with its message read, never with a failed read.
    @Test func aTagGoneBeforeREAD_SIGIsUnknownWithItsMessageRead() async throws {
        let reader = try await Reader(.libnfc)
        defer { reader.close() }
        let sim = try #require(reader.field as? PN532Simulator)
        let (supervisor, log) = reader.watch()
        defer { supervisor.stop() }
        try await log.wait(for: 1)
        let tag = try Self.signed(Self.signedUID, Self.publishedSignature)
        let before = sim.counters.tagExchanges
        reader.field.place(tag)
        #expect(try await log.wait(for: 2)[1].tag?.genuine == .genuine)
        let exchanges = sim.counters.tagExchanges - before  // identify, read the message, READ_SIG
        reader.field.removeAll()
        try await log.wait(for: 3)
        reader.field.place(tag, leavingAfterExchanges: exchanges - 1)
        let arrived = try await log.wait(for: 4)[3]
        #expect(arrived.uri == "https://example.com/sticker")
        #expect(arrived.ndefError == nil)
        #expect(arrived.tag?.genuine == .unknown)
        #expect(arrived.tag?.signature == nil)
    }
}

import Testing
@testable import TagKit

/// Tag contents are untrusted: every driver, fed answers that are random bytes
/// or well-formed answers with random contents, fails with an error and never traps.
@Suite("Drivers against hostile tags")
struct HostileTagTests {
    /// Answers each command with the real tag's answer, corrupted: random bytes
    /// changed, truncated or extended, or replaced outright.
    final class HostileTransport<Tag: SimulatedTag>: TagTransport {
        var tag: Tag
        var generator: any RandomNumberGenerator

        init(_ tag: Tag, seed: UInt64) {
            self.tag = tag
            generator = SeededGenerator(seed: seed)
        }

        func transceive(_ command: [UInt8]) throws(TagTransportError) -> [UInt8] {
            var answer = try tag.exchange(command)
            switch Int.random(in: 0..<5, using: &generator) {
            case 0: return answer
            case 1:
                if !answer.isEmpty { answer[Int.random(in: 0..<answer.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator) }
                return answer
            case 2: return Array(answer.prefix(Int.random(in: 0...answer.count, using: &generator)))
            case 3: return answer + (0..<Int.random(in: 1...8, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            default: return (0..<Int.random(in: 0...40, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            }
        }
    }

    /// Knuth's MMIX linear congruential generator, seeded, so a failure can be replayed.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state ^ (state >> 29)
        }
    }

    static let message: [UInt8] = [0xD1, 0x01, 0x04, 0x55, 0x01, 0x61, 0x62, 0x63]

    @Test("no driver traps on corrupted answers", arguments: 0..<6)
    func corrupted(kind: Int) throws {
        var refusals = 0
        for seed in UInt64(0)..<300 {
            let driver: any NDEFTagDriver
            switch kind {
            case 0: driver = Type2Driver(transport: HostileTransport(try Type2Tag(.ntag216, uid: [4, 1, 2, 3, 4, 5, 6], message: Self.message), seed: seed), tagType: "ntag216")
            case 1: driver = Type2Driver(transport: HostileTransport(try Type2Tag(.ultralight, uid: [4, 1, 2, 3, 4, 5, 6], message: Self.message), seed: seed), tagType: "mifare-ultralight")
            case 2: driver = Type4Driver(transport: HostileTransport(try Type4Tag(uid: [4, 1, 2, 3, 4, 5, 6], message: Self.message), seed: seed))
            case 3: driver = MifareClassicDriver(transport: HostileTransport(try MifareClassicTag(uid: [1, 2, 3, 4], message: Self.message), seed: seed), uid: [1, 2, 3, 4])
            case 4: driver = Type3Driver(transport: HostileTransport(try Type3Tag(idm: [1, 2, 3, 4, 5, 6, 7, 8], message: Self.message), seed: seed), idm: [1, 2, 3, 4, 5, 6, 7, 8])
            default: driver = Type1Driver(transport: HostileTransport(try Type1Tag(uid: [1, 2, 3, 4, 5, 6, 7], message: Self.message), seed: seed))
            }
            do {
                _ = try driver.read()
                try driver.write(message: Self.message + Self.message)
            } catch {
                refusals += 1
            }
        }
        #expect(refusals > 100)  // corruption is noticed, not just survived
    }
}

import NDEF
import Testing

/// A small deterministic generator (SplitMix64) so every run checks the same cases.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random but valid records of every kind the codec knows.
enum RecordGenerator {
    static func bytes(_ count: Int, _ rng: inout SeededGenerator) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
    }

    static func word(_ rng: inout SeededGenerator) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789-._~/?=&%äöü€日本🌍")
        return String((0..<Int.random(in: 0...40, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })
    }

    static func payloadLength(_ rng: inout SeededGenerator) -> Int {
        Bool.random(using: &rng) ? Int.random(in: 0...40, using: &rng) : Int.random(in: 200...700, using: &rng)
    }

    static func record(_ rng: inout SeededGenerator) -> NDEFRecord {
        var record: NDEFRecord
        switch Int.random(in: 0...10, using: &rng) {
        case 0: record = .empty
        case 1: record = .uri(["https://www.", "http://", "tel:", "urn:epc:id:", "", "mailto:"].randomElement(using: &rng)! + word(&rng))
        case 2: record = .text(word(&rng), locale: ["en", "de-CH", "ja"].randomElement(using: &rng)!)
        case 3:
            let text = NDEFText(text: word(&rng), language: "fr", encoding: .utf16)
            record = NDEFRecord(tnf: .wellKnown, type: [0x54], payload: text.payload)
        case 4:
            record = .smartPoster(SmartPoster(uri: "https://" + word(&rng),
                                              titles: [.init(language: "en", text: word(&rng))],
                                              action: [nil, .exec, .save, .edit].randomElement(using: &rng)!,
                                              type: Bool.random(using: &rng) ? "image/png" : nil,
                                              size: Bool.random(using: &rng) ? UInt32.random(in: 0...UInt32.max, using: &rng) : nil))
        case 5: record = .mime("application/octet-stream", bytes(payloadLength(&rng), &rng))
        case 6: record = .wifi(WiFiCredential(ssid: word(&rng), authentication: .wpa2Personal, encryption: .aes, key: word(&rng)))
        case 7: record = .external("example.com:" + word(&rng).filter(\.isASCII).prefix(20), bytes(payloadLength(&rng), &rng))
        case 8: record = .absoluteURI("https://example.com/" + word(&rng).filter(\.isASCII), payload: bytes(Int.random(in: 0...10, using: &rng), &rng))
        case 9: record = NDEFRecord(tnf: .unknown, payload: bytes(payloadLength(&rng), &rng))
        default: record = .androidApp("com.example." + word(&rng))
        }
        if record.tnf != .empty, Int.random(in: 0...3, using: &rng) == 0 {
            record.id = bytes(Int.random(in: 1...8, using: &rng), &rng)
        }
        return record
    }

    static func message(_ rng: inout SeededGenerator) -> NDEFMessage {
        NDEFMessage(records: (0..<Int.random(in: 1...5, using: &rng)).map { _ in record(&rng) })
    }
}

@Suite struct RoundTripTests {
    /// encode → decode is the identity, with and without chunking, and decode → encode
    /// reproduces the canonical bytes.
    @Test func encodeThenDecodeIsTheIdentity() throws {
        var rng = SeededGenerator(state: 0x7A6_0001)
        for _ in 0..<3000 {
            let message = RecordGenerator.message(&rng)
            let bytes = message.encoded()
            let decoded = try NDEFMessage(bytes: bytes)
            #expect(decoded == message)
            #expect(decoded.encoded() == bytes)
            let chunkSize = Int.random(in: 1...300, using: &rng)
            #expect(try NDEFMessage(bytes: message.encoded(chunkSize: chunkSize)) == message)
        }
    }

    /// Every record's typed content survives the trip (no record turns invalid).
    @Test func generatedRecordsDecodeToTheirKind() throws {
        var rng = SeededGenerator(state: 0x7A6_0002)
        for _ in 0..<2000 {
            let record = RecordGenerator.record(&rng)
            if case .invalid(let error) = record.content { Issue.record("\(error)") }
            #expect(try NDEFMessage(bytes: NDEFMessage(records: [record]).encoded()).records == [record])
        }
    }

    /// A message cut short is always rejected, and lenient decoding salvages exactly
    /// the records that ended before the cut.
    @Test func truncatedMessagesAreRejectedAndSalvaged() throws {
        var rng = SeededGenerator(state: 0x7A6_0003)
        for _ in 0..<500 {
            let message = RecordGenerator.message(&rng)
            let bytes = message.encoded()
            var ends: [Int] = []
            var total = 0
            for record in message.records {
                total += NDEFMessage(records: [record]).encoded().count
                ends.append(total)
            }
            let cut = Int.random(in: 0..<bytes.count, using: &rng)
            #expect(throws: NDEFError.self) { try NDEFMessage(bytes: bytes[..<cut]) }
            let (salvaged, error) = NDEFMessage.decodeLenient(bytes[..<cut])
            #expect(error != nil)
            #expect(salvaged.records == Array(message.records.prefix(ends.filter { $0 <= cut }.count)))
        }
    }

    /// Random bytes never trap, and whatever decodes strictly re-encodes to an
    /// equal message.
    @Test func randomBytesNeverTrap() throws {
        var rng = SeededGenerator(state: 0x7A6_0004)
        for _ in 0..<5000 {
            var bytes = RecordGenerator.bytes(Int.random(in: 0...64, using: &rng), &rng)
            if !bytes.isEmpty { bytes[0] = bytes[0] & 0x3F | 0xC0 }
            _ = NDEFMessage.decodeLenient(bytes)
            if let message = try? NDEFMessage(bytes: bytes) {
                #expect(try NDEFMessage(bytes: message.encoded()) == message)
            }
            _ = try? Type2TLVArea.parse(bytes)
        }
    }
}

/// The codec's own UTF-8 check agrees with the standard library on random and
/// edge-case bytes (overlongs, surrogates, past U+10FFFF, truncated sequences).
@Test func utf8CheckAgreesWithTheStandardLibrary() {
    var rng = SeededGenerator(state: 0x7A6_0005)
    let edges: [[UInt8]] = [[0xC0, 0x80], [0xE0, 0x9F, 0xBF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xF0, 0x9F, 0x8C],
                            [0xEF, 0xBF, 0xBD], [0xF0, 0x9F, 0x8C, 0x8D], [0xC2], [0xE2, 0x82, 0xAC]]
    var cases = edges
    for _ in 0..<20_000 {
        let pool: [UInt8] = [0x41, 0x80, 0xBF, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF, 0xA0, 0x9F, 0x90, 0x8F]
        cases.append((0..<Int.random(in: 0...6, using: &rng)).map { _ in pool.randomElement(using: &rng)! })
    }
    for bytes in cases {
        let record = NDEFRecord(tnf: .wellKnown, type: [0x55], payload: [0] + bytes)
        let accepted = (try? NDEFMessage(bytes: NDEFMessage(records: [record]).encoded())) != nil
        #expect(accepted == (String(validating: bytes, as: UTF8.self) != nil), "\(bytes)")
    }
}

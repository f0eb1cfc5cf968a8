import Foundation
import Testing
import NDEF
import TagKit
@testable import PN532Sim

/// libnfc's own tools, run as real processes against the simulator.
@Suite("libnfc tools against the simulator", .serialized)
struct LibNFCIntegrationTests {
    static let uid: [UInt8] = [0x04, 0xA2, 0x24, 0xB2, 0xC3, 0x5E, 0x80]

    @Test("nfc-list shows a placed NTAG215 with its ATQA, UID and SAK")
    func nfcList() throws {
        let sim = try PN532Simulator(pacing: .uart115200)
        defer { sim.close() }
        sim.place(try Type2Tag(.ntag215, uid: Self.uid, message: []))
        let output = try ToolProcess.run("nfc-list", connstring: sim.connstring)
        #expect(output.status == 0, "\(output.stdout)\n\(output.stderr)")
        #expect(output.stdout.contains("NFC device: user defined device opened"))
        #expect(output.stdout.contains("1 ISO14443A passive target(s) found"))
        #expect(output.stdout.contains("ATQA (SENS_RES): 00  44"))
        #expect(output.stdout.contains("UID (NFCID1): 04  a2  24  b2  c3  5e  80"))
        #expect(output.stdout.contains("SAK (SEL_RES): 00"))
    }
}

extension LibNFCIntegrationTests {
    static let pollCases: [(name: String, tag: any SimulatedTag, uid: String)] = [
        ("ntag213", try! Type2Tag(.ntag213, uid: uid, message: []), "04  a2  24  b2  c3  5e  80"),
        ("type4", try! Type4Tag(uid: uid, message: []), "04  a2  24  b2  c3  5e  80"),
        ("mifare-classic-1k", try! MifareClassicTag(uid: [0x94, 0xD8, 0xFC, 0x5F], message: []), "94  d8  fc  5f"),
    ]

    @Test("nfc-poll finds the tag through InAutoPoll and sees it leave", arguments: 0..<3)
    func nfcPoll(index: Int) throws {
        let (_, tag, uid) = Self.pollCases[index]
        let sim = try PN532Simulator(pacing: .uart115200)
        defer { sim.close() }
        sim.place(tag)
        let poll = try ToolProcess("nfc-poll", connstring: sim.connstring)
        try poll.waitForOutput("Waiting for card removing...")
        #expect(poll.stdout.contains("UID (NFCID1): \(uid)"))
        sim.removeAll()
        try poll.waitForOutput("done.")
        #expect(try poll.finish() == 0)
        #expect(sim.counters.commands["InAutoPoll"] == 1)
    }

    @Test("nfc-mfultralight reads every page of an NTAG213 into a dump")
    func nfcMfultralight() throws {
        let sim = try PN532Simulator(pacing: .uart115200)
        defer { sim.close() }
        let tag = try Type2Tag(.ntag213, uid: Self.uid, message: NDEFMessage(records: [.uri("https://example.com/a")]).encoded())
        sim.place(tag)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pn532sim-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try ToolProcess.run("nfc-mfultralight", ["r", "dump.mfd"], connstring: sim.connstring, currentDirectory: directory)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("Using MIFARE Ultralight card with UID: 04a224b2c35e80"))
        #expect(result.stdout.contains("NTAG Type: NTAG213"))
        #expect(result.stdout.contains("Done, 45 of 45 pages read (0 pages failed)."))
        let dump = try [UInt8](Data(contentsOf: directory.appendingPathComponent("dump.mfd")))
        var expected = tag.memory
        expected.replaceSubrange(172..<176, with: [0, 0, 0, 0])  // the password page reads as zeros
        #expect(dump == expected)
    }
}

extension LibNFCIntegrationTests {
    @Test("nfc-list shows every tag type at once: NTAG, Type 4 with its ATS, MIFARE Classic")
    func nfcListEveryType() throws {
        let sim = try PN532Simulator(pacing: .uart115200)
        defer { sim.close() }
        sim.place([
            try Type2Tag(.ntag216, uid: Self.uid, message: []),
            try Type4Tag(uid: [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66], message: []),
            try MifareClassicTag(uid: [0x94, 0xD8, 0xFC, 0x5F], message: []),
        ])
        let output = try ToolProcess.run("nfc-list", connstring: sim.connstring)
        #expect(output.status == 0, "\(output.stdout)\n\(output.stderr)")
        #expect(output.stdout.contains("3 ISO14443A passive target(s) found"))
        #expect(output.stdout.contains("UID (NFCID1): 04  a2  24  b2  c3  5e  80"))
        #expect(output.stdout.contains("ATQA (SENS_RES): 03  44"))
        #expect(output.stdout.contains("ATS: 75  77  81  02  80"))
        #expect(output.stdout.contains("UID (NFCID1): 94  d8  fc  5f"))
        #expect(output.stdout.contains("SAK (SEL_RES): 08"))
        #expect(sim.counters.syntaxErrors == 0 && sim.counters.malformedFrames == 0)
    }

    @Test("nfc-mfclassic finds the public keys and dumps all 64 blocks of a MIFARE Classic 1K")
    func nfcMfclassic() throws {
        let sim = try PN532Simulator(pacing: .none)
        defer { sim.close() }
        let tag = try MifareClassicTag(uid: [0x94, 0xD8, 0xFC, 0x5F], message: NDEFMessage(records: [.text("hello classic")]).encoded())
        sim.place(tag)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pn532sim-mfc-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try ToolProcess.run("nfc-mfclassic", ["r", "a", "u", "dump.mfd"], connstring: sim.connstring,
                                         currentDirectory: directory, timeout: 60)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("Done, 64 of 64 blocks read."))
        let dump = try [UInt8](Data(contentsOf: directory.appendingPathComponent("dump.mfd")))
        for block in 0..<64 {
            let range = (block * 16)..<(block * 16 + (block % 4 == 3 ? 10 : 16))  // trailers: key A and access bits
            #expect(dump[range] == tag.memory[range], "block \(block)")
        }
    }
}

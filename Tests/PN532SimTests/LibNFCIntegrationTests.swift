import Foundation
import Harness
import Testing
import TestSupport
import NDEF
import TagKit
@testable import PN532Sim

/// libnfc's own tools, run as real processes against the simulator.
@Suite("libnfc tools against the simulator", .serialized)
struct LibNFCIntegrationTests {
    static let uid: [UInt8] = [0x04, 0xA2, 0x24, 0xB2, 0xC3, 0x5E, 0x80]

    /// A fresh folder for the files a tool writes; the caller removes it.
    static func scratchDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pn532sim-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test("nfc-list shows a placed NTAG215 with its ATQA, UID and SAK")
    func nfcList() async throws {
        let sim = try PN532Simulator(pacing: .uart115200)
        defer { sim.close() }
        sim.place(try Type2Tag(.ntag215, uid: Self.uid, message: []))
        let output = try await LibNFCTool.run("nfc-list", connstring: sim.connstring)
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
        ("type3", try! Type3Tag(idm: felicaIDm, message: []), "ID (NFCID2): 01  2e  45  7a  9b  11  22  33"),
        ("type1", try! Type1Tag(uid: topazUID, message: []), "4-LSB JEWELID: 01  6f  2a  3b"),
    ]
    static let topazUID: [UInt8] = [0x01, 0x6F, 0x2A, 0x3B, 0x4C, 0x5D, 0x00]
    static let felicaIDm: [UInt8] = [0x01, 0x2E, 0x45, 0x7A, 0x9B, 0x11, 0x22, 0x33]

    @Test("nfc-poll finds the tag through InAutoPoll and sees it leave", arguments: 0..<5)
    func nfcPoll(index: Int) async throws {
        let (_, tag, uid) = Self.pollCases[index]
        let sim = try PN532Simulator(pacing: .uart115200)
        defer { sim.close() }
        sim.place(tag)
        let poll = try RunningTool("/usr/bin/nfc-poll", [], environment: LibNFCTool.environment(sim.connstring))
        try await poll.waitForStdout(containing: uid.contains("ID") ? uid : "UID (NFCID1): \(uid)")
        sim.removeAll()
        // nfc-poll ends "Waiting for card removing..." with no newline; "done." completes the line.
        try await poll.waitForStdout(containing: "Waiting for card removing...done.")
        #expect(try await poll.termination().status == .exited(0))
        #expect(sim.counters.commands["InAutoPoll"] == 1)
    }

    @Test("nfc-mfultralight reads every page of an NTAG213 into a dump")
    func nfcMfultralight() async throws {
        let sim = try PN532Simulator(pacing: .uart115200)
        defer { sim.close() }
        let tag = try Type2Tag(.ntag213, uid: Self.uid, message: NDEFMessage(records: [.uri("https://example.com/a")]).encoded())
        sim.place(tag)
        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await LibNFCTool.run("nfc-mfultralight", ["r", "dump.mfd"], connstring: sim.connstring, currentDirectory: directory)
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
    func nfcListEveryType() async throws {
        let sim = try PN532Simulator(pacing: .uart115200)
        defer { sim.close() }
        sim.place([
            try Type2Tag(.ntag216, uid: Self.uid, message: []),
            try Type4Tag(uid: [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66], message: []),
            try MifareClassicTag(uid: [0x94, 0xD8, 0xFC, 0x5F], message: []),
        ])
        let output = try await LibNFCTool.run("nfc-list", connstring: sim.connstring)
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
    func nfcMfclassic() async throws {
        let sim = try PN532Simulator(pacing: .none)
        defer { sim.close() }
        let tag = try MifareClassicTag(uid: [0x94, 0xD8, 0xFC, 0x5F], message: NDEFMessage(records: [.text("hello classic")]).encoded())
        sim.place(tag)
        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await LibNFCTool.run("nfc-mfclassic", ["r", "a", "u", "dump.mfd"], connstring: sim.connstring,
                                         currentDirectory: directory, timeout: .seconds(60))
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("Done, 64 of 64 blocks read."))
        let dump = try [UInt8](Data(contentsOf: directory.appendingPathComponent("dump.mfd")))
        for block in 0..<64 {
            let range = (block * 16)..<(block * 16 + (block % 4 == 3 ? 10 : 16))  // trailers: key A and access bits
            #expect(dump[range] == tag.memory[range], "block \(block)")
        }
    }
}

extension LibNFCIntegrationTests {
    @Test("nfc-list shows a FeliCa Type 3 tag with its IDm, PMm and system code 12FC")
    func nfcListFeliCa() async throws {
        let sim = try PN532Simulator(pacing: .uart115200)
        defer { sim.close() }
        sim.place(try Type3Tag(idm: Self.felicaIDm, message: []))
        let output = try await LibNFCTool.run("nfc-list", connstring: sim.connstring)
        #expect(output.stdout.contains("1 Felica (212 kbps) passive target(s) found"), "\(output.stdout)\n\(output.stderr)")
        #expect(output.stdout.contains("ID (NFCID2): 01  2e  45  7a  9b  11  22  33"))
        #expect(output.stdout.contains("Parameter (PAD): 00  f1  00  00  00  01  43  00"))
        #expect(output.stdout.contains("System Code (SC): 12  fc"))
    }

    @Test("nfc-read-forum-tag3 extracts the NDEF message of a Type 3 tag")
    func nfcReadForumTag3() async throws {
        let sim = try PN532Simulator(pacing: .uart115200)
        defer { sim.close() }
        // nfc-read-forum-tag3 1.8.0 reads only the first Nbr (4) blocks: its loop counts chunks and blocks alike.
        let message = NDEFMessage(records: [.uri("https://example.com/felica"), .text("Cheek to Cheek")]).encoded()
        #expect(message.count < 64)
        sim.place(try Type3Tag(idm: Self.felicaIDm, message: message))
        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await LibNFCTool.run("nfc-read-forum-tag3", ["-o", "ndef.bin"], connstring: sim.connstring, currentDirectory: directory)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("* Mapping version: 1.0"))
        #expect(try [UInt8](Data(contentsOf: directory.appendingPathComponent("ndef.bin"))) == message)
    }
}

extension LibNFCIntegrationTests {
    @Test("nfc-list shows a Topaz; nfc-jewel reads all 15 blocks of it")
    func nfcJewel() async throws {
        let sim = try PN532Simulator(pacing: .uart115200)
        defer { sim.close() }
        let tag = try Type1Tag(uid: Self.topazUID, message: NDEFMessage(records: [.uri("https://example.com/topaz")]).encoded())
        sim.place(tag)
        let list = try await LibNFCTool.run("nfc-list", connstring: sim.connstring)
        #expect(list.stdout.contains("1 ISO14443A-3 Jewel passive target(s) found"), "\(list.stdout)\n\(list.stderr)")
        #expect(list.stdout.contains("ATQA (SENS_RES): 0c  00"))
        #expect(list.stdout.contains("4-LSB JEWELID: 01  6f  2a  3b"))
        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let read = try await LibNFCTool.run("nfc-jewel", ["r", "dump.jwd"], connstring: sim.connstring, currentDirectory: directory)
        #expect(read.status == 0, "\(read.stdout)\n\(read.stderr)")
        #expect(read.stdout.contains("Found Jewel card with UID: 016f2a3b"))
        #expect(read.stdout.contains("Done, 15 of 15 blocks read."))
        #expect(try [UInt8](Data(contentsOf: directory.appendingPathComponent("dump.jwd"))) == tag.memory)
    }
}

import Foundation
import Testing
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
        sim.place(try Type2Tag(variant: .ntag215, uid: Self.uid, dataArea: [0x03, 0x00, 0xFE]))
        let output = try LibNFCTool.run("nfc-list", connstring: sim.connstring)
        #expect(output.status == 0, "\(output.stdout)\n\(output.stderr)")
        #expect(output.stdout.contains("NFC device: user defined device opened"))
        #expect(output.stdout.contains("1 ISO14443A passive target(s) found"))
        #expect(output.stdout.contains("ATQA (SENS_RES): 00  44"))
        #expect(output.stdout.contains("UID (NFCID1): 04  a2  24  b2  c3  5e  80"))
        #expect(output.stdout.contains("SAK (SEL_RES): 00"))
    }
}

extension LibNFCIntegrationTests {
    @Test("nfc-poll finds the tag through InAutoPoll and sees it leave")
    func nfcPoll() throws {
        let sim = try PN532Simulator(pacing: .uart115200)
        defer { sim.close() }
        sim.place(try Type2Tag(variant: .ntag213, uid: Self.uid, dataArea: [0x03, 0x00, 0xFE]))
        let poll = try LibNFCTool("nfc-poll", connstring: sim.connstring)
        try poll.waitForOutput("Waiting for card removing...")
        #expect(poll.stdout.contains("UID (NFCID1): 04  a2  24  b2  c3  5e  80"))
        sim.removeAll()
        try poll.waitForOutput("done.")
        #expect(try poll.finish() == 0)
        #expect(sim.counters.commands["InAutoPoll"] == 1)
    }

    @Test("nfc-mfultralight reads every page of an NTAG213 into a dump")
    func nfcMfultralight() throws {
        let sim = try PN532Simulator(pacing: .uart115200)
        defer { sim.close() }
        let tag = try Type2Tag(variant: .ntag213, uid: Self.uid, dataArea: [0x03, 0x05, 0xD1, 0x01, 0x01, 0x54, 0x02, 0xFE])
        sim.place(tag)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pn532sim-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try LibNFCTool.run("nfc-mfultralight", ["r", "dump.mfd"], connstring: sim.connstring, currentDirectory: directory)
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

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

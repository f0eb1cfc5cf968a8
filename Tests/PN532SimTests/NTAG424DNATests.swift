import Foundation
import NDEF
import SecureTags
import TagCore
import TagKit
import Testing
@testable import PN532Sim

/// The simulated NTAG 424 DNA: each read of its NDEF file mirrors a fresh SUN message that verifies.
@Suite struct NTAG424DNATests {
    static let uid: [UInt8] = [0x04, 0xDE, 0x5F, 0x1E, 0xAC, 0xC0, 0x40]
    static let factoryKeys = SUNKeys(id: "factory", metaRead: [UInt8](repeating: 0, count: 16), fileRead: [UInt8](repeating: 0, count: 16))

    /// The tag `request` places, from the control protocol.
    static func placed(_ request: String) throws -> NTAG424DNATag {
        let sim = try PN532Simulator(pacing: .none)
        defer { sim.close() }
        let response = SimulatorControl(simulator: sim).respond(to: request)
        #expect(response.contains(#""ok":true"#), "\(response)")
        return try #require(sim.tags.first as? NTAG424DNATag)
    }

    /// The URL a reader reads (SELECT, CC, NDEF file in chunks of the CC's MLe), as tagrouter's Type 4 driver does.
    static func read(_ transport: ModelTransport<NTAG424DNATag>) throws -> String {
        let content = try Type4Driver(transport: transport).read()
        let message = try NDEFMessage(bytes: try #require(content.message))
        return try #require(message.records.first?.content.uriValue)
    }

    @Test func eachReadMirrorsTheNextCounterAndVerifies() throws {
        let tag = try Self.placed(#"{"op":"place","type":"ntag424","uid":"04de5f1eacc040","sun":{"counter":60,"url":"https://door.example/t"}}"#)
        let transport = ModelTransport(tag)
        let verifier = SUNVerifier(keys: [Self.factoryKeys])
        let first = try Self.read(transport)
        #expect(first.hasPrefix("https://door.example/t?picc_data="))
        let verified = try #require(verifier.verify(first)).get()
        #expect(verified.uid == Self.uid && verified.counter == 61, "the message spans several READ BINARYs and still verifies")
        let second = try Self.read(transport)  // the driver selects the application again: a new read
        #expect(second != first)
        #expect(try #require(verifier.verify(second)).get().counter == 62)
        #expect(transport.tag.readCounter == 62)
    }

    @Test func aDiversifiedTagVerifiesOnlyWithTheSameDiversification() throws {
        let master = "00112233445566778899aabbccddeeff"
        let tag = try Self.placed(
            #"{"op":"place","type":"ntag424","uid":"04de5f1eacc040","sun":{"metaKey":"\#(String(repeating: "11", count: 16))","fileKey":"\#(master)","diversify":{"aid":"3042f5","systemIdentifier":"4e585020416275"}}}"#)
        let url = try Self.read(ModelTransport(tag))
        var keys = SUNKeys(id: "batch", metaRead: [UInt8](repeating: 0x11, count: 16), fileRead: TagUID(master)!.bytes)
        #expect(SUNVerifier(keys: [keys]).verify(url) == .failure(.macMismatch))
        keys.diversification = SUNKeyDiversification(applicationID: [0x30, 0x42, 0xF5], systemIdentifier: Array("NXP Abu".utf8))
        #expect(try #require(SUNVerifier(keys: [keys]).verify(url)).get().counter == 1)
    }

    /// SDMReadCtr stops at FFFFFF: the read after the last counter is refused, never wrapped to an old value.
    @Test func theLastCounterIsReadOnce() throws {
        let tag = try Self.placed(#"{"op":"place","type":"ntag424","uid":"04de5f1eacc040","sun":{"counter":16777214}}"#)
        let transport = ModelTransport(tag)
        #expect(try #require(SUNVerifier(keys: [Self.factoryKeys]).verify(try Self.read(transport))).get().counter == 0xFF_FFFF)
        #expect(throws: TagDriverError.self) { try Self.read(transport) }
    }

    /// A tag taken off and placed again without `counter` keeps its counter, as a real one: its next read is no replay.
    @Test func aTagPlacedAgainGoesOnFromItsCounter() throws {
        let sim = try PN532Simulator(pacing: .none)
        defer { sim.close() }
        let control = SimulatorControl(simulator: sim)
        let place = #"{"op":"place","type":"ntag424","uid":"04de5f1eacc040"}"#
        #expect(control.respond(to: place.replacingOccurrences(of: "}", with: #","sun":{"counter":60}}"#)).contains(#""ok":true"#))
        sim.withField { field in
            let read: [[UInt8]] = [[0x00, 0xA4, 0x04, 0x00, 0x07] + Type4Tag.applicationID + [0x00], [0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04], [0x00, 0xB0, 0x00, 0x00, 0x02]]
            for apdu in read { _ = try? field.entries[0].tag.exchange(apdu) }
        }
        #expect((sim.tags.first as? NTAG424DNATag)?.readCounter == 61)
        #expect(control.respond(to: #"{"op":"remove"}"#) == #"{"ok":true,"removed":1}"#)
        #expect(control.respond(to: place).contains(#""ok":true"#))
        #expect((sim.tags.first as? NTAG424DNATag)?.readCounter == 61)
        #expect(control.respond(to: #"{"op":"replace","type":"type4","uid":"04de5f1eacc040","sun":{}}"#).contains("sun is for type ntag424, not type4"))
    }

    @Test func badPersonalisationsAreRefusedWithTheField() throws {
        let sim = try PN532Simulator(pacing: .none)
        defer { sim.close() }
        let control = SimulatorControl(simulator: sim)
        func error(_ sun: String, uid: String = "04de5f1eacc040") -> String {
            control.respond(to: #"{"op":"place","type":"ntag424","uid":"\#(uid)","sun":\#(sun)}"#)
        }
        #expect(error(#"{"fileKey":"0011"}"#).contains("sun.fileKey is an AES-128 key: 32 hex digits, not 4"))
        #expect(error(#"{"counter":16777215}"#).contains("sun.counter must be 0 to 16777214"))
        #expect(error(#"{"diversify":{"aid":"xyz"}}"#).contains("sun.diversify.aid is not hex"))
        #expect(error("{}", uid: "04de5f1e").contains("an ntag424 has a 7-byte UID, not 4 bytes"))
        #expect(sim.tags.isEmpty)
    }
}

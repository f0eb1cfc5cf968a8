import Foundation
import Harness
import NDEF
import OrderedJSON
import PN532Sim
import TagKit
import Testing
import TestSupport

/// `tag.genuine` through `read` and `watch` as real processes, and a watched line
/// through `check-config --explain` (which checks its signature again).
extension ReaderCLITests {
    /// A simulated NTAG with the real tag's UID and published signature (see GenuineReadTests).
    static func signedSimulator() throws -> PN532Simulator {
        let sim = try PN532Simulator(pacing: .none)
        sim.place(try ReaderBehaviourTests.signed(ReaderBehaviourTests.signedUID, ReaderBehaviourTests.publishedSignature))
        return sim
    }

    @Test func readSaysTheTagIsGenuine() async throws {
        let sim = try Self.signedSimulator()
        defer { sim.close() }
        let run = try await Self.tagrouter(["read", "--device", sim.connstring, "--timeout", "10"])
        #expect(run.status == 0, "\(run.stderr)")
        let event = try JSONValue.parse(run.stdout)
        #expect(event.value(atPath: "tag.uid") == "04ab87f2ca1190")
        #expect(event.value(atPath: "tag.genuine") == .bool(true))
        #expect(event.value(atPath: "tag.signature") == "67b1750bcceb1174f9a33bf20e0226551a6366939b31f949848c3c087350fa90")
    }

    @Test func aWatchedGenuineTagMatchesGenuineRoutesInExplain() async throws {
        let sim = try PN532Simulator(pacing: .none)
        defer { sim.close() }
        let config = "/tmp/tagrouter-genuine-\(getpid()).yaml"
        try """
            readers: [{name: front-door, device: "\(sim.connstring)", exit_delay: 0s}]
            routes: [{name: real, match: {genuine: true}, actions: [log]}, {name: other, actions: [log]}]
            """.write(toFile: config, atomically: true, encoding: .utf8)
        defer { unlink(config) }
        let watch = try RunningTool(BuiltProducts.tagrouter.path, ["watch", "--config", config], environment: ["LIBNFC_AUTO_SCAN": "false"])
        defer { watch.signal(SIGINT) }
        try await watch.waitForStdout(lines: 1)
        sim.place(try ReaderBehaviourTests.signed(ReaderBehaviourTests.signedUID, ReaderBehaviourTests.publishedSignature))
        let line = try await watch.waitForStdout(lines: 2)[1].text
        #expect(try JSONValue.parse(line).value(atPath: "tag.genuine") == .bool(true))
        let explained = try await Self.tagrouter(["check-config", config, "--explain", "--event", line])
        #expect(explained.stdout.contains("route real: MATCH"), "\(explained.stdout)")
        // The same line claiming another UID: the copied signature does not fit it.
        let moved = line.replacingOccurrences(of: "\"uid\":\"04ab87f2ca1190\"", with: "\"uid\":\"04ab87f2ca1191\"")
        let refused = try await Self.tagrouter(["check-config", config, "--explain", "--event", moved])
        #expect(refused.stdout.contains("route other: MATCH"), "\(refused.stdout)")
        #expect(refused.stdout.contains("genuine"), "\(refused.stdout)")
    }
}

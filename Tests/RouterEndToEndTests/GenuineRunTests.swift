import Foundation
import Testing

/// `tag.genuine` in the daemon: `tagrouter simulate` places NTAGs with a real
/// tag's published signature (github.com/aramix/nxp-originality-verifier, its
/// test vector), the copy of it on another UID, and none; routes and a
/// `require_genuine` tag entry act on the verdict.
@Suite struct GenuineRunTests {
    static let signature = "67b1750bcceb1174f9a33bf20e0226551a6366939b31f949848c3c087350fa90"

    /// `tagrouter run` reading a fresh simulator, with `tagsAndRoutes` after its reader.
    static func daemon(in scratch: Scratch, _ tagsAndRoutes: String) async throws -> (simulator: TagrouterProcess, daemon: TagrouterProcess, control: String) {
        let (simulator, link, control) = try await startSimulator(in: scratch)
        let reader = "state_dir: \(scratch.path)/state\nreaders: [{ name: door, device: \"pn532_uart:\(link)\", exit_delay: 200ms }]\n"
        let environment = ["LIBNFC_AUTO_SCAN": "false", "LIBNFC_INTRUSIVE_SCAN": "false"]
        do {
            let file = try scratch.write("tagrouter.yaml", reader + tagsAndRoutes)
            return (simulator, try TagrouterProcess(["run", "--config", file], directory: scratch.path, environment: environment), control)
        } catch {
            simulator.stop()
            throw error
        }
    }

    @Test func routesActOnTheVerdictOfEachTap() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        // The tag entry that requires a genuine chip, a route per verdict and one for removals.
        let (simulator, daemon, control) = try await Self.daemon(in: scratch, """
            tags: [{ name: anna, uid: 04ab87f2ca1190, require_genuine: true }]
            routes:
              - { name: up, match: { event: reader.connected }, actions: [{ log: "connected" }] }
              - { name: real, match: { genuine: true, tag: anna }, actions: [{ log: "open {{tag.name}} genuine={{tag.genuine}}" }] }
              - { name: fake, match: { genuine: false }, actions: [{ log: "fake {{tag.uid}}" }] }
              - { name: unsure, match: { genuine: unknown }, actions: [{ log: "unsure {{tag.uid}}" }] }
              - { name: gone, match: { event: tag.removed, genuine: [true, false, unknown] }, actions: [{ log: "gone {{tag.genuine}}" }] }
            """)
        defer { simulator.stop() }
        defer { daemon.stop() }
        #expect(try await daemon.stdout(count: 1, timeout: .seconds(30)) == ["connected"])
        let taps = [
            (#""uid":"04ab87f2ca1190","signature":"\#(Self.signature)""#, "open anna genuine=true"),
            (#""uid":"04a224b2c35e80","signature":"\#(Self.signature)""#, "fake 04a224b2c35e80"),
            (#""uid":"04112233445566""#, "unsure 04112233445566"),
        ]
        for (index, (tag, line)) in taps.enumerated() {
            try await request(control, #"{"op":"place","type":"ntag215",\#(tag),"records":[{"text":"hi"}]}"#, in: scratch)
            #expect(try await daemon.stdout(count: 2 + 2 * index, timeout: .seconds(30)).last == line)
            try await request(control, #"{"op":"remove"}"#, in: scratch)
            // The removal carries the arrival's verdict.
            #expect(try await daemon.stdout(count: 3 + 2 * index, timeout: .seconds(30)).last == "gone " + ["true", "false", "unknown"][index])
        }
    }

    @Test func aSignatureOfTheWrongSizeIsRefusedBySimulate() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let (simulator, _, control) = try await startSimulator(in: scratch)
        defer { simulator.stop() }
        let client = try TagrouterProcess(["simulate", "--control", control, "--request", #"{"op":"place","type":"ntag215","signature":"0011"}"#],
                                directory: scratch.path)
        defer { client.stop() }
        #expect(try await client.exitStatus() != 0)
        #expect((client.stdout + client.stderr).joined(separator: "\n").contains("32-byte originality signature (64 hex digits), not 2 bytes"))
    }
}

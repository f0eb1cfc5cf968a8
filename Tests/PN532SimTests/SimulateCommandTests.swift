import Foundation
import Harness
import Testing
import TestSupport

/// `tagrouter simulate` run as the built binary: a link for libnfc, a control
/// socket, `--request` as the client, and a clean exit on SIGTERM.
@Suite("tagrouter simulate")
struct SimulateCommandTests {
    /// The built `tagrouter`.
    static let binary = BuiltProducts.tagrouter.path

    @Test("serves libnfc through --link and takes tags through --control")
    func endToEnd() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary), "build tagrouter first (swift build)")
        let folder = try LibNFCIntegrationTests.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let link = folder.appendingPathComponent("pn532").path, socket = folder.appendingPathComponent("control.sock").path
        let simulator = try RunningTool(Self.binary, ["simulate", "--link", link, "--control", socket, "--no-pacing",
                                                      "--tag", #"{"type":"ntag213","uid":"04a224b2c35e80"}"#])
        defer { simulator.signal(SIGTERM) }
        try await simulator.waitForStdout(containing: "control: \(socket)")
        #expect(simulator.stdout.contains { $0.text.contains("connstring: pn532_uart:\(link)") })

        let request = #"{"op":"place","type":"type4","uid":"04112233445566","records":[{"uri":"https://example.com"}]}"#
        let placed = try await ToolRun(Self.binary, ["simulate", "--control", socket, "--request", request])
        #expect(placed.status == 0)
        #expect(placed.stdout == #"{"ok":true,"tags":[{"type":"type4","uid":"04112233445566"}]}"# + "\n")

        let list = try await LibNFCTool.run("nfc-list", connstring: "pn532_uart:" + link)
        #expect(list.stdout.contains("2 ISO14443A passive target(s) found"), "\(list.stdout)\n\(list.stderr)")

        let refused = try await ToolRun(Self.binary, ["simulate", "--control", socket, "--request", #"{"op":"dump","uid":"01"}"#])
        #expect(refused.status == 1)
        #expect(refused.stdout.contains("no tag with UID 01"))

        simulator.signal(SIGTERM)
        #expect(try await simulator.termination().status == .exited(0))
        #expect(!FileManager.default.fileExists(atPath: link) && !FileManager.default.fileExists(atPath: socket))
    }

    @Test("--link refuses to replace a real file; --request without a simulator says what to start")
    func mistakes() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary), "build tagrouter first (swift build)")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sim-cli-file-\(getpid())")
        try Data("keep me".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let refused = try await ToolRun(Self.binary, ["simulate", "--link", file.path])
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("exists and is not a symlink"))
        #expect(try String(contentsOf: file, encoding: .utf8) == "keep me")
        let notJSON = try await ToolRun(Self.binary, ["simulate", "--no-pacing", "--tag", #"{"type":"ntag213",}"#])
        #expect(notJSON.status == 64)
        #expect(notJSON.stderr.contains(#"--tag {"type":"ntag213",}: not JSON at byte 18"#), "\(notJSON.stderr)")
        let wrongType = try await ToolRun(Self.binary, ["simulate", "--no-pacing", "--tag", #"{"type":"ntag213","uid":7}"#])
        #expect(wrongType.status == 64)
        #expect(wrongType.stderr.contains("uid: expected a string, got a number (7)"), "\(wrongType.stderr)")
        let missing = try await ToolRun(Self.binary, ["simulate", "--control", file.path + ".none", "--request", #"{"op":"list"}"#])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("is `tagrouter simulate --control"))
    }
}

import Foundation
import Testing

/// `tagrouter simulate` run as the built binary: a link for libnfc, a control
/// socket, `--request` as the client, and a clean exit on SIGTERM.
@Suite("tagrouter simulate")
struct SimulateCommandTests {
    /// The built `tagrouter`, beside the test bundle in `.build/<configuration>/`.
    static var binary: URL {
        let buildFolder = Bundle.main.bundleURL.pathExtension == "xctest"
            ? Bundle.main.bundleURL.deletingLastPathComponent() : Bundle.main.bundleURL
        return buildFolder.appendingPathComponent("tagrouter")
    }

    @Test("serves libnfc through --link and takes tags through --control")
    func endToEnd() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary.path), "build tagrouter first (swift build)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sim-cli-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let link = folder.appendingPathComponent("pn532").path, socket = folder.appendingPathComponent("control.sock").path
        let simulator = try ToolProcess(executable: Self.binary, ["simulate", "--link", link, "--control", socket, "--no-pacing",
                                                                  "--tag", #"{"type":"ntag213","uid":"04a224b2c35e80"}"#])
        defer { simulator.terminate() }
        try simulator.waitForOutput("control: \(socket)")
        #expect(simulator.stdout.contains("connstring: pn532_uart:\(link)"))

        let request = #"{"op":"place","type":"type4","uid":"04112233445566","records":[{"uri":"https://example.com"}]}"#
        let placed = try ToolProcess(executable: Self.binary, ["simulate", "--control", socket, "--request", request])
        #expect(try placed.finish() == 0)
        #expect(placed.stdout == #"{"ok":true,"tags":[{"type":"type4","uid":"04112233445566"}]}"# + "\n")

        let list = try ToolProcess.run("nfc-list", connstring: "pn532_uart:" + link)
        #expect(list.stdout.contains("2 ISO14443A passive target(s) found"), "\(list.stdout)\n\(list.stderr)")

        let refused = try ToolProcess(executable: Self.binary, ["simulate", "--control", socket, "--request", #"{"op":"dump","uid":"01"}"#])
        #expect(try refused.finish() == 1)
        #expect(refused.stdout.contains("no tag with UID 01"))

        simulator.terminate()
        #expect(try simulator.finish() == 0)
        #expect(!FileManager.default.fileExists(atPath: link) && !FileManager.default.fileExists(atPath: socket))
    }

    @Test("--link refuses to replace a real file; --request without a simulator says what to start")
    func mistakes() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary.path), "build tagrouter first (swift build)")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sim-cli-file-\(getpid())")
        try Data("keep me".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let refused = try ToolProcess(executable: Self.binary, ["simulate", "--link", file.path])
        #expect(try refused.finish() == 64)
        #expect(refused.stderr.contains("exists and is not a symlink"))
        #expect(try String(contentsOf: file, encoding: .utf8) == "keep me")
        let missing = try ToolProcess(executable: Self.binary, ["simulate", "--control", file.path + ".none", "--request", #"{"op":"list"}"#])
        #expect(try missing.finish() == 1)
        #expect(missing.stderr.contains("is `tagrouter simulate --control"))
    }
}

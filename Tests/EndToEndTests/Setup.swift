import Foundation
import Harness
import TestSupport

/// One end-to-end set-up as a user has it: a scratch directory, `tagrouter simulate`
/// on a link and control socket there, and `tagrouter run` on a config written there.
struct Setup {
    let directory = NSTemporaryDirectory() + "tagrouter-e2e-" + UUID().uuidString
    var link: String { directory + "/pn532" }
    var control: String { directory + "/pn532.sock" }

    init() throws { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }

    /// `tagrouter simulate --link L --control S` (paced as shipped unless `pacing` is false), once it says where it is.
    func simulator(pacing: Bool = true) async throws -> RunningTool {
        let simulator = try RunningTool(
            BuiltProducts.tagrouter.path, ["simulate", "--link", link, "--control", control] + (pacing ? [] : ["--no-pacing"]), directory: directory)
        try await simulator.waitForStdout(containing: "control: \(control)")
        return simulator
    }

    /// `tagrouter run --config C` on `config` (YAML), with libnfc kept off other serial ports;
    /// its control socket at `control` (by default in the scratch directory).
    func daemon(config: String, control: String? = nil) throws -> RunningTool {
        let file = directory + "/tagrouter.yaml"
        try config.write(toFile: file, atomically: true, encoding: .utf8)
        return try RunningTool(
            BuiltProducts.tagrouter.path, ["run", "--config", file, "--log-format", "json", "--control", control ?? directory + "/control.sock"],
            environment: ["LIBNFC_AUTO_SCAN": "false", "LIBNFC_INTRUSIVE_SCAN": "false"], directory: directory)
    }

    /// `tagrouter events` on the daemon's control socket in the scratch directory, once the daemon is ready and it follows.
    func events(of daemon: RunningTool) async throws -> RunningTool {
        try await daemon.waitForStderr(containing: "control socket ready")
        let events = try RunningTool(BuiltProducts.tagrouter.path, ["events", "--control", directory + "/control.sock"], directory: directory)
        try await events.waitForStderr(containing: "following the events of tagrouter")
        return events
    }

    /// Sends one request the way a user does: `tagrouter simulate --control S --request JSON`; throws unless it exits 0.
    func request(_ json: String) async throws {
        let client = try RunningTool(BuiltProducts.tagrouter.path, ["simulate", "--control", control, "--request", json], directory: directory)
        let end = try await client.termination()
        guard end.status == .exited(0) else {
            throw TestFailure(description: "simulate --request \(json) ended \(end.status): \((client.stdout + client.stderr).map(\.text))")
        }
    }
}

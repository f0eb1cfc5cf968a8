import Foundation
import TestSupport
import Testing

/// Which config `run` and `check-config` pick when none is given.
@Suite struct ConfigSearchTests {
    /// Under systemd, `ConfigurationDirectory=` sets CONFIGURATION_DIRECTORY: its tagrouter.yaml
    /// wins over one in the working directory.
    @Test func configurationDirectoryComesFirst() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let systemd = setup.directory + "/etc-tagrouter"
        try FileManager.default.createDirectory(atPath: systemd, withIntermediateDirectories: true)
        let route = "routes: [{name: %@, actions: [log]}]\n"
        try String(format: route, "from-systemd").write(toFile: systemd + "/tagrouter.yaml", atomically: true, encoding: .utf8)
        try String(format: route, "from-cwd").write(toFile: setup.directory + "/tagrouter.yaml", atomically: true, encoding: .utf8)

        let chosen = try await ToolRun(
            BuiltProducts.tagrouter.path, ["check-config"], environment: ["CONFIGURATION_DIRECTORY": systemd], directory: setup.directory)
        #expect(chosen.status == 0, "\(chosen.stderr)")
        #expect(chosen.stdout.hasPrefix(systemd + "/tagrouter.yaml: OK"))
        #expect(chosen.stdout.contains("from-systemd"))

        let empty = setup.directory + "/empty"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let fallback = try await ToolRun(
            BuiltProducts.tagrouter.path, ["check-config"], environment: ["CONFIGURATION_DIRECTORY": empty], directory: setup.directory)
        #expect(fallback.stdout.hasPrefix("./tagrouter.yaml: OK"), "\(fallback.stdout)\(fallback.stderr)")
    }
}

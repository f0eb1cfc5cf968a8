import Foundation
import TestSupport
import Testing

/// sd_notify as systemd receives it: `systemd-probe` runs the notifier against a socket this test binds.
@Suite struct SystemdNotifierTests {
    static let probe = BuiltProducts.executable("systemd-probe").path

    static func folder() throws -> String {
        let path = NSTemporaryDirectory() + "systemd-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func sendsEachStateAsOneDatagramWithStatusKeptOnOneLine() async throws {
        let listener = try DatagramListener(path: try Self.folder() + "/notify")
        let run = try await ToolRun(Self.probe, ["notify"], environment: ["NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "30000000"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("listening: true"))
        #expect(run.stdout.contains("watchdog interval: 15.0 seconds"))
        let messages = listener.received().map { String(decoding: $0, as: UTF8.self) }
        try #require(messages.count == 5, "\(messages)")
        #expect(messages[0] == "READY=1\nSTATUS=starting READY=1")
        #expect(messages[1] == "STATUS=2 readers connected · 6 routes")
        #expect(messages[2] == "WATCHDOG=1")
        #expect(messages[3].hasPrefix("RELOADING=1\nMONOTONIC_USEC="))
        #expect(UInt64(messages[3].split(separator: "=").last ?? "") ?? 0 > 0)
        #expect(messages[4] == "STOPPING=1")
    }

    @Test func outsideSystemdEveryCallIsANoOp() async throws {
        let run = try await ToolRun("/usr/bin/env", ["-u", "NOTIFY_SOCKET", "-u", "WATCHDOG_USEC", Self.probe, "notify"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("listening: false"))
        #expect(run.stdout.contains("watchdog interval: none"))
    }

    @Test func aSocketThatIsGoneIsAnErrorNamingIt() async throws {
        let path = try Self.folder() + "/missing"
        let run = try await ToolRun(Self.probe, ["notify"], environment: ["NOTIFY_SOCKET": path])
        #expect(run.status == 1)
        #expect(run.stderr == "error: sd_notify READY=1 to NOTIFY_SOCKET=\(path): No such file or directory\n")
    }
}

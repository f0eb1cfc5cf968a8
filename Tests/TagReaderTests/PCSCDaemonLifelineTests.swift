import Foundation
import Glibc
import Testing
import TestSupport

/// The tests' pcscd ends with the test process that started it, however that process ends:
/// `make test` used to leave one running (seen alive 40 minutes later).
@Suite struct PCSCDaemonLifelineTests {
    @Test func pcscdEndsWhenItsTestProcessIsKilled() async throws {
        let record = NSTemporaryDirectory() + "pcscd-lifeline-" + UUID().uuidString
        defer { unlink(record) }
        await #expect(processExitsWith: .signal(SIGKILL)) { [record = record as String] in
            let daemon = try PCSCDaemon()
            try daemon.directory.write(toFile: record, atomically: true, encoding: .utf8)
            kill(getpid(), SIGKILL)
        }
        let directory = try String(contentsOfFile: record, encoding: .utf8)
        // The daemon is found by its config folder on its command line; it must be gone well
        // within pcscd's own one-minute --auto-exit, which did not end it.
        let deadline = ContinuousClock.now + .seconds(20)
        while !Self.processes(mentioning: directory).isEmpty, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(Self.processes(mentioning: directory).isEmpty, "pcscd outlived the test process that started it")
    }

    /// The pids of the processes whose command line contains `text`.
    private static func processes(mentioning text: String) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> Int32? in
            guard let pid = Int32(entry),
                  let commandLine = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline"),
                  String(decoding: commandLine, as: UTF8.self).contains(text) else { return nil }
            return pid
        }
    }
}

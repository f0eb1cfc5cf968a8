import ChildProcess
import Foundation
import Glibc
import Testing

@Suite struct ChildProcessTests {
    @Test func runsArgvDirectlyAndCapturesOutput() async throws {
        let result = try await ChildProcess.run(
            ChildCommand(["/bin/sh", "-c", "printf '%s|' \"$@\"; echo err >&2; exit 3", "sh", "a b", "$(x)"]),
            options: ChildOptions(timeout: .seconds(20)))
        #expect(result.status == .exited(3))
        #expect(!result.timedOut)
        #expect(result.stdoutText == "a b|$(x)|")
        #expect(result.stderrText == "err\n")
    }

    @Test func feedsStandardInputAndEnvironmentAndDirectory() async throws {
        let directory = try TemporaryDirectory()
        let input = Array(repeating: UInt8(ascii: "x"), count: 300_000) + Array("end".utf8)
        let result = try await ChildProcess.run(
            ChildCommand(["sh", "-c", "pwd; echo \"$GREETING\"; wc -c"], environment: ["GREETING": "hi", "PATH": "/usr/bin:/bin"], workingDirectory: directory.path),
            options: ChildOptions(input: .bytes(input), timeout: .seconds(20)))
        let lines = result.stdoutText.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines == [directory.path, "hi", String(input.count)])
    }

    @Test func timeoutKillsTheWholeProcessGroup() async throws {
        let directory = try TemporaryDirectory()
        let pidFile = directory.path + "/grandchild.pid"
        // The grandchild ignores SIGTERM and holds no pipe: only the group SIGKILL ends it.
        let script = "sh -c 'trap \"\" TERM; echo $$ > \(pidFile); exec sleep 300' & sleep 300"
        let result = try await ChildProcess.run(
            ChildCommand(["/bin/sh", "-c", script]),
            options: ChildOptions(stdout: .null, stderr: .null, timeout: .milliseconds(500), killGrace: .milliseconds(300)))
        #expect(result.timedOut)
        #expect(result.status == .signalled(SIGTERM))
        let grandchild = try #require(pid_t(try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(try await waitUntilGone(grandchild), "grandchild \(grandchild) survived the timeout")
    }

    @Test func notFoundSaysWhichProgram() {
        #expect(throws: ChildProcessError.notFound(program: "no-such-program-xyz", searchPath: "/usr/bin:/bin")) {
            _ = try ChildProcess(ChildCommand(["no-such-program-xyz"], environment: ["PATH": "/usr/bin:/bin"]))
        }
        #expect(throws: ChildProcessError.emptyCommand) { _ = try ChildProcess(ChildCommand([])) }
    }

    @Test func streamsLinesBothWays() async throws {
        let child = try ChildProcess(
            ChildCommand(["/bin/sh", "-c", "while read -r line; do echo \"got $line\"; echo \"log $line\" >&2; done"]),
            options: ChildOptions(input: .stream, stdout: .lines, stderr: .lines))
        var replies = child.stdoutLines.makeAsyncIterator()
        #expect(child.write(Array("one\n".utf8)))
        #expect(await replies.next() == "got one")
        child.write(Array("two\n".utf8))
        #expect(await replies.next() == "got two")
        child.closeInput()
        #expect(await replies.next() == nil)
        var logged: [String] = []
        for await line in child.stderrLines { logged.append(line) }
        #expect(logged == ["log one", "log two"])
        #expect(await child.termination().status == .exited(0))
        #expect(!child.write(Array("late\n".utf8)))
    }

    @Test func terminateStopsALongRunningChild() async throws {
        let child = try ChildProcess(ChildCommand(["sleep", "300"]), options: ChildOptions(input: .stream, killGrace: .seconds(5)))
        child.terminate()
        let result = await child.termination()
        #expect(result.status == .signalled(SIGTERM))
        #expect(!result.timedOut)
    }

    @Test func keepsOnlyTheTail() async throws {
        let result = try await ChildProcess.run(
            ChildCommand(["/bin/sh", "-c", "seq 1 10000"]), options: ChildOptions(timeout: .seconds(20), tailBytes: 10))
        #expect(result.stdoutText == "\n9999\n10000\n".suffix(10).description)
    }
}

/// Polls until the process is gone or a zombie (dead, waiting for whoever
/// adopted it to reap it), for at most 20 s.
func waitUntilGone(_ pid: pid_t) async throws -> Bool {
    let deadline = ContinuousClock.now + .seconds(20)
    while ContinuousClock.now < deadline {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
        if let close = stat.lastIndex(of: ")"), stat[close...].dropFirst(2).first == "Z" { return true }
        try await Task.sleep(for: .milliseconds(20))
    }
    return false
}

/// A fresh directory under /tmp, removed when the value goes away.
final class TemporaryDirectory {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("childprocess-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

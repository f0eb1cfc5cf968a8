import ChildProcess
import Foundation
import Glibc
import TestSupport
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
        // The timeout leaves the shells time to start and write the pid on a loaded machine.
        let script = "sh -c 'trap \"\" TERM; echo $$ > \(pidFile); exec sleep 300' & sleep 300"
        let result = try await ChildProcess.run(
            ChildCommand(["/bin/sh", "-c", script]),
            options: ChildOptions(stdout: .null, stderr: .null, timeout: .seconds(3), killGrace: .milliseconds(300)))
        #expect(result.timedOut)
        #expect(result.status == .signalled(SIGTERM))
        let grandchild = try #require(pid_t(try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(try await waitUntilGone(grandchild), "grandchild \(grandchild) survived the timeout")
    }

    /// A plugin's background children die with it when it asks for that, whether it
    /// exits by itself or is terminated; a shell command's are left alone.
    @Test(arguments: [true, false])
    func killsGroupOnExitTakesTheBackgroundChildrenAlong(_ killsGroup: Bool) async throws {
        let directory = try TemporaryDirectory()
        let pidFile = directory.path + "/background.pid"
        let child = try ChildProcess(
            ChildCommand(["/bin/sh", "-c", "sleep 300 & echo $! > \(pidFile); cat"]),
            options: ChildOptions(input: .stream, stdout: .null, stderr: .null, killsGroupOnExit: killsGroup))
        child.closeInput()
        #expect(await child.termination().status == .exited(0))
        let background = try #require(pid_t(try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        defer { kill(background, SIGKILL) }
        if killsGroup {
            #expect(try await waitUntilGone(background), "background child \(background) outlived its parent")
        } else {
            #expect(kill(background, 0) == 0, "the background child of a plain command was killed")
        }
    }

    @Test func notFoundSaysWhichProgram() {
        #expect(throws: ChildProcessError.notFound(program: "no-such-program-xyz", searchPath: "/usr/bin:/bin")) {
            _ = try ChildProcess(ChildCommand(["no-such-program-xyz"], environment: ["PATH": "/usr/bin:/bin"]))
        }
        #expect(throws: ChildProcessError.emptyCommand) { _ = try ChildProcess(ChildCommand([])) }
        #expect(throws: ChildProcessError.nulCharacter(place: "argument 2", position: 3)) {
            _ = try ChildProcess(ChildCommand(["echo", "ab\0c"]))
        }
        #expect(throws: ChildProcessError.nulCharacter(place: "environment variable TAG_TEXT", position: 1)) {
            _ = try ChildProcess(ChildCommand(["true"], environment: ["TAG_TEXT": "\0rm -rf", "PATH": "/usr/bin:/bin"]))
        }
        #expect(throws: ChildProcessError.badWorkingDirectory(path: "/no/such/dir", errno: ENOENT)) {
            _ = try ChildProcess(ChildCommand(["true"], workingDirectory: "/no/such/dir"))
        }
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

    @Test func daemonStandardErrorTakesTheChildsStandardOutput() async throws {
        // Exit 0 when the shell's descriptors 1 and 2 are the same file.
        let sameFile = ChildCommand(["/bin/sh", "-c", "[ \"$(readlink /proc/$$/fd/1)\" = \"$(readlink /proc/$$/fd/2)\" ]"])
        let merged = try await ChildProcess.run(sameFile, options: ChildOptions(stdout: .daemonStandardError, stderr: .inherit, timeout: .seconds(20)))
        #expect(merged.succeeded)
        let separate = try await ChildProcess.run(sameFile, options: ChildOptions(stdout: .null, stderr: .inherit, timeout: .seconds(20)))
        #expect(separate.status == .exited(1))
    }

    @Test func keepsOnlyTheTail() async throws {
        let result = try await ChildProcess.run(
            ChildCommand(["/bin/sh", "-c", "seq 1 10000"]), options: ChildOptions(timeout: .seconds(20), tailBytes: 10))
        #expect(result.stdoutText == "\n9999\n10000\n".suffix(10).description)
    }
}

/// A fresh directory under /tmp, removed when the value goes away.
final class TemporaryDirectory {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("childprocess-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// A child flooding its stdout while its lines are not taken is held back by
    /// the pipe (it blocks in `write`), it is not buffered without bound; and a
    /// terminate request gets through the flood.
    @Test func aFloodingChildIsHeldBackAndStillStops() async throws {
        let directory = try TemporaryDirectory()
        let progress = directory.path + "/written"
        // Writes 1,000-byte lines for ever, noting after each how many bytes it has written.
        let flood = """
            import os, sys
            line = b"x" * 999 + b"\\n"
            written, out = 0, os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT)
            while True:
                written += os.write(1, line)
                os.pwrite(out, b"%20d" % written, 0)
            """
        let limit = 256 << 10
        let child = try ChildProcess(
            ChildCommand(["python3", "-c", flood, progress]), options: ChildOptions(stdout: .lines, stderr: .null, bufferedBytes: limit))
        defer { kill(-child.pid, SIGKILL) }
        func written() -> Int { Int(((try? String(contentsOfFile: progress, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespaces)) ?? 0 }
        // Unread lines, the pipe, one slice being read and a partial line: far below 2 MiB.
        let bound = 2 << 20
        func blockedInWrite() -> Bool { ((try? String(contentsOfFile: "/proc/\(child.pid)/wchan", encoding: .utf8)) ?? "").contains("pipe_write") }
        // Nobody takes lines: the child ends up blocked in write on a full pipe for good
        // (blocked twice in a row with nothing written in between), or it got past the bound.
        #expect(await eventually {
            let before = written()
            guard before > 0, blockedInWrite() else { return written() > bound }
            try? await Task.sleep(for: .milliseconds(20))
            return (blockedInWrite() && written() == before) || written() > bound
        })
        #expect(written() <= bound, "the child wrote \(written()) bytes while nobody read its lines")
        // Taking lines lets it on, never further than the bound ahead of the reader.
        var taken = 0
        var lines = child.stdoutLines.makeAsyncIterator()
        for _ in 0..<5000 {
            guard let line = await lines.next() else { break }
            taken += line.utf8.count + 1
            #expect(written() <= taken + bound, "the child wrote \(written()) bytes while \(taken) were taken")
            if written() > taken + bound { break }
        }
        #expect(taken == 5_000_000)
        child.terminate()
        #expect(await child.termination().status == .signalled(SIGTERM))
    }
}

import ChildProcess
import Foundation
import Glibc
import Synchronization

/// A built executable running as a real, long-lived process: every line of its
/// stdout and stderr is kept with the instant it arrived, waits have deadlines
/// (they fail, not hang), and the whole process group is killed when it goes away.
public final class RunningTool: Sendable {
    /// One output line and when the test saw it.
    public struct Line: Sendable {
        public var text: String
        public var arrival: ContinuousClock.Instant
    }

    private final class Recorder: Sendable {
        let lines = Mutex<(stdout: [Line], stderr: [Line])>(([], []))
    }

    private let process: ChildProcess
    private let recorder = Recorder()
    /// The two tasks that move output lines into the recorder; both end once the child's pipes are drained.
    private let recording: [Task<Void, Never>]

    /// Starts `executable` (a path) with `arguments`; `environment` is added to the inherited one.
    /// With `input`, its standard input is a pipe that `send(line:)` writes to; else `/dev/null`.
    public init(_ executable: String, _ arguments: [String], environment: [String: String] = [:], directory: String? = nil, input: Bool = false) throws {
        let command = ChildCommand(
            [executable] + arguments, environment: TestIdentity.childEnvironment(adding: environment), workingDirectory: directory)
        process = try ChildProcess(command, options: ChildOptions(input: input ? .stream : .null, stdout: .lines, stderr: .lines))
        recording = [
            Task { [process, recorder] in
                for await text in process.stdoutLines {
                    let line = Line(text: text, arrival: .now)
                    recorder.lines.withLock { $0.stdout.append(line) }
                }
            },
            Task { [process, recorder] in
                for await text in process.stderrLines {
                    let line = Line(text: text, arrival: .now)
                    recorder.lines.withLock { $0.stderr.append(line) }
                }
            },
        ]
    }

    /// The whole process group is killed, and the process gone, before `deinit` returns.
    deinit { process.end() }

    /// The process id (also its process group).
    public var pid: pid_t { process.pid }

    /// Standard output so far, line by line.
    public var stdout: [Line] { recorder.lines.withLock { $0.stdout } }

    /// Standard error so far, line by line.
    public var stderr: [Line] { recorder.lines.withLock { $0.stderr } }

    /// Waits for a stdout line (from index `after` on) containing `text`, and returns it.
    @discardableResult
    public func waitForStdout(containing text: String, after skip: Int = 0, timeout: Duration = .seconds(20)) async throws -> Line {
        try await waitFor("'\(text)' on stdout", timeout: timeout) { stdout.dropFirst(skip).first { $0.text.contains(text) } }
    }

    /// Waits until stdout holds at least `count` lines, and returns them all.
    @discardableResult
    public func waitForStdout(lines count: Int, timeout: Duration = .seconds(20)) async throws -> [Line] {
        try await waitFor("\(count) lines on stdout", timeout: timeout) { stdout.count >= count ? stdout : nil }
    }

    /// Waits for a stderr line (from index `after` on) containing `text`, and returns it.
    @discardableResult
    public func waitForStderr(containing text: String, after skip: Int = 0, timeout: Duration = .seconds(20)) async throws -> Line {
        try await waitFor("'\(text)' on stderr", timeout: timeout) { stderr.dropFirst(skip).first { $0.text.contains(text) } }
    }

    /// Writes `line` and a newline to its standard input (started with `input: true`); false when it was not taken.
    @discardableResult
    public func send(line: String) -> Bool { process.write(Array((line + "\n").utf8)) }

    /// Sends `signal` to the process (not its group).
    public func signal(_ number: Int32) { kill(process.pid, number) }

    /// Waits for the process to end and returns how it ended; every line it
    /// wrote is in `stdout` and `stderr` by then.
    public func termination(timeout: Duration = .seconds(20)) async throws -> ChildTermination {
        _ = try await waitFor("exit", timeout: timeout) { process.hasExited ? true : nil }
        let ended = await process.termination()
        // The line streams finish before the termination is reported, so these waits are short.
        for task in recording { await task.value }
        return ended
    }

    /// Resident memory (`VmRSS` from `/proc/<pid>/status`) in KiB, or nil once it has exited.
    public var residentKiB: Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(process.pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return nil }
        return Int(line.split(separator: " ").dropFirst().first ?? "")
    }

    /// User + system CPU time so far (from `/proc/<pid>/stat`), or nil once it has exited.
    public var cpuTime: Duration? {
        guard let stat = try? String(contentsOfFile: "/proc/\(process.pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")")
        else { return nil }
        // Fields after the parenthesised name, from field 3 (state) on: utime and stime are fields 14 and 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Int64(fields[11]), let system = Int64(fields[12]) else { return nil }
        return .milliseconds((user + system) * 1000 / Int64(sysconf(Int32(_SC_CLK_TCK))))
    }

    private func waitFor<Value>(_ what: String, timeout: Duration, _ found: () -> Value?) async throws -> Value {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let value = found() { return value }
            guard ContinuousClock.now < deadline else {
                let tail = (stderr.suffix(10) + stdout.suffix(10)).map(\.text).joined(separator: "\n")
                throw TestFailure(description: "timed out after \(timeout) waiting for \(what) from \(process.command); last output:\n\(tail)")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}

import ChildProcess
import Harness

/// A program run to its end as a user runs it: its exit status and all it wrote.
/// A run still going at the deadline is killed and throws, so a test fails instead of hanging.
public struct ToolRun: Sendable {
    /// The exit status.
    public var status: Int32
    /// Everything written to standard output.
    public var stdout: String
    /// Everything written to standard error.
    public var stderr: String

    /// Runs `executable` (a path) with `arguments` in `directory`, `stdin` then end of file on its standard input;
    /// `environment` is added to the inherited one.
    public init(_ executable: String, _ arguments: [String], environment: [String: String] = [:], directory: String? = nil,
                stdin: [UInt8] = [], timeout: Duration = .seconds(30)) async throws {
        let command = ChildCommand(
            [executable] + arguments, environment: TestIdentity.childEnvironment(adding: environment), workingDirectory: directory)
        let end = try await ChildProcess.run(command, options: ChildOptions(input: .bytes(stdin), timeout: timeout, tailBytes: 1 << 20))
        stdout = end.stdoutText
        stderr = end.stderrText
        guard !end.timedOut, case .exited(let code) = end.status else {
            throw TestFailure(description: "\(command) did not exit by itself within \(timeout) (\(end)); it printed:\n\(stdout)\n\(stderr)")
        }
        status = code
    }
}

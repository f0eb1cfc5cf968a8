@preconcurrency import Glibc
import ChildProcess
import Synchronization

/// The processes `tagrouter demo` starts — this same binary as `simulate` and as
/// `run` — each in its own process group, and the tasks reading their output.
/// `stopAll` ends them in reverse order (the daemon before the reader it reads),
/// SIGTERM first and SIGKILL after a grace period, so none outlives the demo.
final class DemoProcesses: Sendable {
    private struct Started: Sendable {
        var name: String
        var process: ChildProcess
        /// Reads the output until the process closes it; awaited after the process stopped.
        var reading: Task<Void, Never>?
    }

    private let started = Mutex<[Started]>([])
    private let executable: String

    init() throws(CLIError) {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { throw .runtime("cannot find this program's own file (/proc/self/exe): \(String(cString: strerror(errno)))") }
        executable = String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Starts `tagrouter <arguments>` in `directory`; `read` is given the process and runs until its output ends.
    @discardableResult
    func start(
        _ name: String, _ arguments: [String], directory: String, environment: [String: String] = [:],
        read: (@Sendable (ChildProcess) async -> Void)? = nil
    ) throws(CLIError) -> ChildProcess {
        let command = ChildCommand(
            [executable] + arguments, environment: ChildCommand.inheritedEnvironment.merging(environment) { $1 }, workingDirectory: directory)
        let process: ChildProcess
        do {
            process = try ChildProcess(command, options: ChildOptions(stdout: .lines, stderr: .lines, killGrace: .seconds(5)))
        } catch {
            throw .runtime("cannot start the \(name) (\(command)): \(error)")
        }
        let reading = read.map { read in Task { await read(process) } }
        started.withLock { $0.append(Started(name: name, process: process, reading: reading)) }
        return process
    }

    /// Stops every process, the last started first, waits for each to be reaped
    /// and its output read, and says how each ended.
    func stopAll() async -> [(name: String, end: ChildTermination)] {
        let all = started.withLock { started in
            defer { started.removeAll() }
            return started
        }
        var ends: [(name: String, end: ChildTermination)] = []
        for child in all.reversed() {
            child.process.terminate()
            let end = await child.process.termination()
            await child.reading?.value
            ends.append((child.name, end))
        }
        return ends
    }
}

import Foundation

/// A real process — one of Debian's libnfc tools or the built `tagrouter` —
/// run the way a user would. Output is collected as it arrives, so a test can
/// wait for a line (with a deadline) before acting, then for the exit.
final class ToolProcess: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private let process = Process()
    private let condition = NSCondition()
    private var collected = Data()
    private var errors = Data()
    private var openStreams = 2
    let name: String

    /// Starts `/usr/bin/<tool>` with `LIBNFC_DEVICE` set to `connstring` and autoscan off.
    convenience init(_ tool: String, _ arguments: [String] = [], connstring: String, currentDirectory: URL? = nil) throws {
        try self.init(executable: URL(fileURLWithPath: "/usr/bin/" + tool), arguments, currentDirectory: currentDirectory,
                      environment: ["LIBNFC_DEVICE": connstring, "LIBNFC_AUTO_SCAN": "false", "LIBNFC_INTRUSIVE_SCAN": "false"])
    }

    /// Starts `executable` with the test's environment plus `environment`.
    init(executable: URL, _ arguments: [String], currentDirectory: URL? = nil, environment: [String: String] = [:]) throws {
        name = ([executable.lastPathComponent] + arguments).joined(separator: " ")
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        collect(out.fileHandleForReading, isError: false)
        collect(err.fileHandleForReading, isError: true)
    }

    private func collect(_ handle: FileHandle, isError: Bool) {
        Thread.detachNewThread { [self] in
            while true {
                let chunk = handle.availableData
                condition.lock()
                if chunk.isEmpty { openStreams -= 1 } else if isError { errors += chunk } else { collected += chunk }
                condition.broadcast()
                condition.unlock()
                if chunk.isEmpty { return }
            }
        }
    }

    var stdout: String {
        condition.lock()
        defer { condition.unlock() }
        return String(decoding: collected, as: UTF8.self)
    }

    var stderr: String {
        condition.lock()
        defer { condition.unlock() }
        return String(decoding: errors, as: UTF8.self)
    }

    /// Waits until stdout contains `text`; throws when the deadline passes or the tool ends first.
    func waitForOutput(_ text: String, timeout: TimeInterval = 20) throws {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while !String(decoding: collected, as: UTF8.self).contains(text) {
            guard openStreams > 0, condition.wait(until: deadline) else {
                throw Failure(description: "\(name) did not print '\(text)'; it printed:\n\(String(decoding: collected, as: UTF8.self))\n\(String(decoding: errors, as: UTF8.self))")
            }
        }
    }

    /// Asks the process to stop (SIGTERM), as Ctrl-C or systemd would.
    func terminate() { process.terminate() }

    /// Waits for the tool to exit and returns its status; kills it after `timeout`.
    @discardableResult
    func finish(timeout: TimeInterval = 30) throws -> Int32 {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        while openStreams > 0, condition.wait(until: deadline) {}
        let ended = openStreams == 0
        condition.unlock()
        if !ended {
            process.terminate()
            kill(process.processIdentifier, SIGKILL)
            throw Failure(description: "\(name) did not finish within \(Int(timeout)) s; it printed:\n\(stdout)\n\(stderr)")
        }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Runs the tool to its end and returns its status.
    static func run(_ tool: String, _ arguments: [String] = [], connstring: String, currentDirectory: URL? = nil,
                    timeout: TimeInterval = 30) throws -> (status: Int32, stdout: String, stderr: String) {
        let tool = try ToolProcess(tool, arguments, connstring: connstring, currentDirectory: currentDirectory)
        let status = try tool.finish(timeout: timeout)
        return (status, tool.stdout, tool.stderr)
    }
}

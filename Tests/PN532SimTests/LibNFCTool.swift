import Foundation

/// Runs one of Debian's libnfc tools against a connstring, the way a user
/// would, and returns what it printed. Fails (does not hang) after `timeout`.
struct LibNFCTool {
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    struct TimedOut: Error, CustomStringConvertible {
        var description: String
    }

    static func run(_ tool: String, _ arguments: [String] = [], connstring: String,
                    timeout: Duration = .seconds(30), currentDirectory: URL? = nil) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/" + tool)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["LIBNFC_DEVICE"] = connstring
        environment["LIBNFC_AUTO_SCAN"] = "false"
        environment["LIBNFC_INTRUSIVE_SCAN"] = "false"
        process.environment = environment
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        let (seconds, _) = timeout.components
        // Drain both pipes while waiting so a chatty tool never blocks on a full pipe.
        let stdoutData = Pipe.collect(out)
        let stderrData = Pipe.collect(err)
        if exited.wait(timeout: .now() + .seconds(Int(seconds))) == .timedOut {
            kill(-process.processIdentifier, SIGKILL)
            kill(process.processIdentifier, SIGKILL)
            throw TimedOut(description: "\(tool) \(arguments.joined(separator: " ")) did not finish within \(timeout)")
        }
        return Output(status: process.terminationStatus,
                      stdout: String(decoding: stdoutData.wait(), as: UTF8.self),
                      stderr: String(decoding: stderrData.wait(), as: UTF8.self))
    }
}

extension Pipe {
    /// Reads the pipe to its end on a background thread.
    final class Collected: @unchecked Sendable {
        private var data = Data()
        private let done = DispatchSemaphore(value: 0)

        init(_ handle: FileHandle) {
            Thread.detachNewThread { [self] in
                data = handle.readDataToEndOfFile()
                done.signal()
            }
        }

        func wait() -> Data {
            done.wait()
            return data
        }
    }

    static func collect(_ pipe: Pipe) -> Collected { Collected(pipe.fileHandleForReading) }
}

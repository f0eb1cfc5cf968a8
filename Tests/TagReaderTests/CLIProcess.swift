import Foundation
import Synchronization

/// The built `tagrouter` binary run as a user runs it. Output is collected as it
/// arrives, so a test can wait for a line (with a deadline) while the process
/// runs (`watch`), or wait for the exit (`read`, `write`). A process still running
/// after 30 s is killed, so a test fails instead of hanging.
final class CLIProcess: Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private final class Output: Sendable {
        let stdout = Mutex(Data())
        let stderr = Mutex(Data())
        let open = Mutex(2)
    }

    private let process: Process
    private let output = Output()

    /// `.build/<config>/tagrouter`, beside the test bundle.
    static var binary: URL {
        let folders = [Bundle.main.executableURL?.deletingLastPathComponent(), Bundle.main.bundleURL.deletingLastPathComponent()]
        for folder in folders.compactMap({ $0 }) {
            let url = folder.appendingPathComponent("tagrouter")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug/tagrouter")
    }

    init(_ arguments: [String]) throws {
        process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["LIBNFC_AUTO_SCAN"] = "false"
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        collect(out.fileHandleForReading, isError: false)
        collect(err.fileHandleForReading, isError: true)
        let process = process
        DispatchQueue.global().asyncAfter(deadline: .now() + 30) {
            if process.isRunning { process.terminate() }
        }
    }

    private func collect(_ handle: FileHandle, isError: Bool) {
        let output = output
        Thread.detachNewThread {
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                if isError {
                    output.stderr.withLock { $0.append(data) }
                } else {
                    output.stdout.withLock { $0.append(data) }
                }
            }
            output.open.withLock { $0 -= 1 }
        }
    }

    var stdout: String { output.stdout.withLock { String(decoding: $0, as: UTF8.self) } }
    var stderr: String { output.stderr.withLock { String(decoding: $0, as: UTF8.self) } }
    var lines: [String] { stdout.split(separator: "\n").map(String.init) }

    /// Waits until stdout holds `count` lines.
    @discardableResult
    func waitForLines(_ count: Int, within limit: Duration = .seconds(20)) async throws -> [String] {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if lines.count >= count { return lines }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw Failure(description: "expected \(count) lines within \(limit); stdout: \(stdout) stderr: \(stderr)")
    }

    /// Waits for the exit (and the pipes' end); the exit status.
    func exitStatus(within limit: Duration = .seconds(25)) async throws -> Int32 {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if !process.isRunning, output.open.withLock({ $0 }) == 0 { return process.terminationStatus }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw Failure(description: "still running after \(limit); stdout: \(stdout) stderr: \(stderr)")
    }

    /// Runs to completion.
    static func run(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        let run = try CLIProcess(arguments)
        let status = try await run.exitStatus()
        return (status, run.stdout, run.stderr)
    }

    func interrupt() {
        if process.isRunning { kill(process.processIdentifier, SIGINT) }
    }
}

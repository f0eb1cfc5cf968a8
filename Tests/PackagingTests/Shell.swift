import Foundation
import Harness
import TestSupport

/// Programs the packaging tests run (dpkg-deb, lintian, systemd-analyze, bash),
/// found on PATH, with the exit status and output kept.
enum Shell {
    static func run(_ program: String, _ arguments: [String], environment: [String: String] = [:], directory: String? = nil,
                    timeout: Duration = .seconds(120)) async throws -> ToolRun {
        try await ToolRun(try path(of: program), arguments, environment: environment, directory: directory, timeout: timeout)
    }

    /// Runs and returns standard output; a non-zero exit status fails with everything the program printed.
    @discardableResult
    static func check(_ program: String, _ arguments: [String], environment: [String: String] = [:]) async throws -> String {
        let run = try await run(program, arguments, environment: environment)
        guard run.status == 0 else {
            throw TestFailure(description: "\(program) \(arguments.joined(separator: " ")) exited \(run.status):\n\(run.stdout)\n\(run.stderr)")
        }
        return run.stdout
    }

    private static func path(of program: String) throws -> String {
        if program.hasPrefix("/") { return program }
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        guard let found = folders.map({ "\($0)/\(program)" }).first(where: FileManager.default.isExecutableFile(atPath:)) else {
            throw TestFailure(description: "\(program) is not installed: run scripts/install-deps.sh")
        }
        return found
    }
}

/// A fresh folder under the system's temporary directory.
enum TemporaryFolder {
    static func make(_ prefix: String) throws -> String {
        let path = NSTemporaryDirectory() + "\(prefix)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}

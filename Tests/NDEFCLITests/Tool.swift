import Foundation
import TestSupport

/// The built `tagrouter` binary, run as a user would: arguments, stdin, exit status,
/// stdout and stderr. A run that takes longer than 20 s is killed, so a test fails
/// instead of hanging.
struct Tool {
    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func run(_ arguments: [String], stdin: Data = Data()) throws -> Run {
        let process = Process()
        process.executableURL = BuiltProducts.tagrouter
        process.arguments = arguments
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let watchdog = DispatchWorkItem { process.terminate() }
        DispatchQueue.global().asyncAfter(deadline: .now() + 20, execute: watchdog)
        defer { watchdog.cancel() }
        input.fileHandleForWriting.write(stdin)
        try input.fileHandleForWriting.close()
        let stderrData = ErrorCollector(errors.fileHandleForReading)
        let stdout = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                   stderr: String(decoding: stderrData.wait(), as: UTF8.self))
    }
}

/// Reads a pipe to its end on its own thread, so a full stderr pipe cannot stall stdout.
private final class ErrorCollector: @unchecked Sendable {
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

import Foundation

/// A process under measurement: its output lines with the instant each arrived,
/// and its CPU time and resident memory read from `/proc`.
final class ChildProcess: @unchecked Sendable {
    private let process = Process()
    private let condition = NSCondition()
    /// Lines of stdout not yet taken, each with when it was read.
    private var lines: [(line: String, at: ContinuousClock.Instant)] = []
    private var pending = Data()

    init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let handle = output.fileHandleForReading
        Thread.detachNewThread { [self] in
            while true {
                let data = handle.availableData
                let now = ContinuousClock.now
                condition.lock()
                defer {
                    condition.broadcast()
                    condition.unlock()
                }
                if data.isEmpty { return }
                pending.append(data)
                while let newline = pending.firstIndex(of: 0x0A) {
                    lines.append((String(decoding: pending[..<newline], as: UTF8.self), now))
                    pending.removeSubrange(...newline)
                }
            }
        }
    }

    struct Timeout: Error, CustomStringConvertible {
        let description: String
    }

    /// Waits for the next line containing `text` (dropping lines before it) and
    /// returns when it was read.
    @discardableResult
    func waitFor(_ text: String, within limit: Duration = .seconds(20)) throws -> ContinuousClock.Instant {
        let deadline = Date() + Double(limit.components.seconds)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let index = lines.firstIndex(where: { $0.line.contains(text) }) {
                let at = lines[index].at
                lines.removeFirst(index + 1)
                return at
            }
            guard condition.wait(until: deadline) else { throw Timeout(description: "no '\(text)' within \(limit)") }
        }
    }

    /// User + system CPU time so far (from `/proc/<pid>/stat`, in clock ticks).
    var cpuTime: Duration {
        guard let stat = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return .zero }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        let ticks = (Int64(fields[11]) ?? 0) + (Int64(fields[12]) ?? 0)
        return .milliseconds(ticks * 1000 / Int64(sysconf(Int32(_SC_CLK_TCK))))
    }

    /// Resident memory in KiB (`VmRSS`).
    var residentKiB: Int {
        let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        process.waitUntilExit()
    }
}

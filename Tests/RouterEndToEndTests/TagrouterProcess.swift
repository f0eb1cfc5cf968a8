import Foundation
import Harness
import OrderedJSON
import Synchronization
import TestSupport
import Testing

/// A scratch directory for one test, removed by `remove()`.
struct Scratch {
    let path = NSTemporaryDirectory() + "tagrouter-e2e-" + UUID().uuidString

    init() { try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }

    func write(_ name: String, _ text: String) throws -> String {
        let file = path + "/" + name
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

struct DaemonTimeout: Error, CustomStringConvertible {
    let waitingFor: String
    let stderr: String
    var description: String { "timed out waiting for \(waitingFor); stderr so far:\n\(stderr)" }
}

/// `tagrouter` running as a real process: events go in on stdin (`--events-from -`),
/// stdout and stderr come back line by line; every wait has a deadline.
final class TagrouterProcess {
    private let process: Process
    private let input: FileHandle
    private let stdoutLines: LineCollector
    private let stderrLines: LineCollector

    /// `wrappedIn`: a command that runs `tagrouter` (its path and `arguments` follow the wrapper's own).
    init(_ arguments: [String], directory: String, environment: [String: String] = [:], wrappedIn wrapper: [String] = []) throws {
        process = Process()
        if let launcher = wrapper.first {
            process.executableURL = URL(fileURLWithPath: launcher)
            process.arguments = wrapper.dropFirst() + [BuiltProducts.tagrouter.path] + arguments
        } else {
            process.executableURL = BuiltProducts.tagrouter
            process.arguments = arguments
        }
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        var env = ProcessInfo.processInfo.environment.merging(TestIdentity.environment) { $1 }
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        input = stdin.fileHandleForWriting
        stdoutLines = LineCollector(stdout.fileHandleForReading)
        stderrLines = LineCollector(stderr.fileHandleForReading)
    }

    /// Sends one event as a JSON line.
    func send(_ event: JSONValue) { input.write(Data((event.serialized() + "\n").utf8)) }

    /// Closes stdin: the end of the events.
    func closeInput() { try? input.close() }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    var pid: Int32 { process.processIdentifier }

    var stdout: [String] { stdoutLines.lines }
    var stderr: [String] { stderrLines.lines }

    /// Waits until stdout has `count` lines, returning them.
    func stdout(count: Int, timeout: Duration = .seconds(20)) async throws -> [String] {
        try await waitUntil("\(count) lines on stdout", timeout: timeout) { stdoutLines.lines.count >= count }
        return stdoutLines.lines
    }

    /// Waits for a line on stderr containing `text`, returning it.
    @discardableResult
    func stderr(containing text: String, after skip: Int = 0, timeout: Duration = .seconds(20)) async throws -> String {
        var found: String?
        try await waitUntil("'\(text)' on stderr", timeout: timeout) {
            found = stderrLines.lines.dropFirst(skip).first { $0.contains(text) }
            return found != nil
        }
        return found ?? ""
    }

    /// The sum of `count` over the JSON log lines holding `message` for `action`.
    func reported(_ message: String, action: String) -> Int {
        stderr.reduce(0) { sum, line in
            guard line.contains(message), let json = try? JSONValue.parse(line), json["action"]?.stringValue == action,
                case .int(let count)? = json["count"]
            else { return sum }
            return sum + Int(count)
        }
    }

    /// Waits for the process to exit and returns its status.
    func exitStatus(timeout: Duration = .seconds(20)) async throws -> Int32 {
        try await waitUntil("exit", timeout: timeout) { !process.isRunning }
        try await waitUntil("the end of stdout", timeout: timeout) { stdoutLines.hasEnded }
        try await waitUntil("the end of stderr", timeout: timeout) { stderrLines.hasEnded }
        return process.terminationStatus
    }

    /// Kills the process if it still runs (the end of every test), and waits until it has exited: a test
    /// process that moved on or exited first would leave it running past its test.
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            let deadline = ContinuousClock.now + .seconds(20)
            while process.isRunning, ContinuousClock.now < deadline { usleep(1_000) }
        }
        closeInput()
    }

    /// Polls `condition` (it reads state other threads fill) until true or the deadline.
    /// It sleeps, never blocks: a blocked thread of the small concurrency pool (2 on a
    /// 2-core machine) would starve every other test running beside this one.
    private func waitUntil(_ what: String, timeout: Duration, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            guard ContinuousClock.now < deadline else { throw DaemonTimeout(waitingFor: what, stderr: stderrLines.lines.joined(separator: "\n")) }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}

/// Collects a pipe's lines on a thread of its own.
final class LineCollector: Sendable {
    private let state = Mutex<(lines: [String], partial: String, ended: Bool)>(([], "", false))

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                state.withLock { state in
                    state.partial += String(decoding: data, as: UTF8.self)
                    while let newline = state.partial.firstIndex(of: "\n") {
                        state.lines.append(String(state.partial[..<newline]))
                        state.partial = String(state.partial[state.partial.index(after: newline)...])
                    }
                }
            }
            state.withLock { $0.ended = true }
        }
    }

    var lines: [String] { state.withLock { $0.lines } }

    /// True once the pipe has ended.
    var hasEnded: Bool { state.withLock { $0.ended } }
}

/// A tag.arrived event as the reader emits it.
func arrival(uid: String, uri: String? = nil, reader: String = "door") -> JSONValue {
    var object = JSONObject()
    object["event"] = "tag.arrived"
    object["id"] = .string(UUID().uuidString.lowercased())
    object["reader"] = .string(reader)
    object["tag"] = ["uid": .string(uid), "type": "ntag215"]
    if let uri {
        object["ndef"] = ["records": [["tnf": 1, "type": "U", "uri": .string(uri)]]]
        object["uri"] = .string(uri)
    }
    return .object(object)
}

/// `tagrouter simulate` on a pseudo-terminal in `scratch`, ready: the process, the device path
/// libnfc opens (`pn532_uart:<link>`) and its control socket.
func startSimulator(in scratch: Scratch) async throws -> (process: TagrouterProcess, link: String, control: String) {
    let link = scratch.path + "/pn532", control = scratch.path + "/pn532.sock"
    let simulator = try TagrouterProcess(["simulate", "--link", link, "--control", control, "--no-pacing"], directory: scratch.path)
    do {
        _ = try await simulator.stdout(count: 3)
    } catch {
        simulator.stop()
        throw error
    }
    return (simulator, link, control)
}

/// Sends one control request to a running simulator with `tagrouter simulate --request`.
func request(_ control: String, _ json: String, in scratch: Scratch) async throws {
    let client = try TagrouterProcess(["simulate", "--control", control, "--request", json], directory: scratch.path)
    defer { client.stop() }
    #expect(try await client.exitStatus() == 0)
}

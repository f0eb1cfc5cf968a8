import Foundation
import Harness

extension MosquittoBroker {
    /// Publishes each of `lines` as one message on `topic` at QoS 1 through one
    /// `mosquitto_pub -l` — a burst as fast as the broker takes it — and returns when all are sent.
    public func publishLines(_ lines: [String], topic: String) throws {
        let file = directory.appendingPathComponent("burst-\(UUID().uuidString).txt")
        try Data(lines.joined(separator: "\n").appending("\n").utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_pub")
        process.arguments = ["-h", "127.0.0.1", "-p", String(port), "-q", "1", "-t", topic, "-l"]
        process.environment = TestIdentity.childEnvironment()
        process.standardInput = try FileHandle(forReadingFrom: file)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TestFailure(description: "mosquitto_pub -l of \(lines.count) lines exited with \(process.terminationStatus)")
        }
    }
}

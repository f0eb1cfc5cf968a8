import Foundation
import Harness

/// Publishes as a node with `mqtt.sign` does — MQTT 5, the key id and the
/// HMAC-SHA256 of the payload in user properties — and as someone replaying
/// what they captured does (the same payload and properties again). The HMAC
/// comes from openssl's command line, not from the code under test.
public enum SignedPublisher {
    /// HMAC-SHA256 of `payload` under `key` as lowercase hex.
    public static func hmac(_ payload: String, key: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = ["dgst", "-sha256", "-hmac", key]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data(payload.utf8))
        try input.fileHandleForWriting.close()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard let digest = text.split(separator: " ").last else { throw TestFailure(description: "openssl printed no digest: \(text)") }
        return digest.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The user properties that sign `payload` with the key `keyID` names.
    public static func signature(_ payload: String, keyID: String, key: String) throws -> [(String, String)] {
        [("tagrouter-key-id", keyID), ("tagrouter-hmac-sha256", try hmac(payload, key: key))]
    }

    /// Publishes `payload` at QoS 1 with MQTT 5 and the user properties given (`mosquitto_pub`).
    public static func publish(port: Int, _ topic: String, _ payload: String, properties: [(String, String)] = []) throws {
        let arguments = ["-V", "mqttv5", "-p", String(port), "-q", "1", "-t", topic, "-m", payload]
            + properties.flatMap { ["-D", "publish", "user-property", $0.0, $0.1] }
        try MosquittoBroker.run("/usr/bin/mosquitto_pub", arguments)
    }
}

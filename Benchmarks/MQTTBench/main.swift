// mqtt-bench: drives the tagrouter MQTT connection on its own, for
// scripts/bench/mqtt.sh (publish rate) and the last-will test (hold).
//
//   mqtt-bench publish --port P [--host H] [--topic T] [--qos Q] [--count N] [--payload-file F] [--serial]
//       publishes the payload N times, pipelined in order (or one at a time
//       with --serial, as one router action does), waits for every
//       acknowledgement, prints `<count> messages in <seconds> s = <rate> msg/s`.
//   mqtt-bench hold --port P [--host H] --client-id ID --availability-topic T
//       connects, prints `connected`, and stays connected until killed.
import Foundation
import Lifecycle
import MQTTPlugin

struct Usage: Error, CustomStringConvertible {
    var description: String
}

func options(_ arguments: ArraySlice<String>) throws -> [String: String] {
    var result: [String: String] = [:]
    var rest = arguments
    while let flag = rest.popFirst() {
        guard flag.hasPrefix("--") else { throw Usage(description: "unexpected argument '\(flag)'") }
        let name = String(flag.dropFirst(2))
        if name == "serial" {
            result[name] = "true"
        } else {
            guard let value = rest.popFirst() else { throw Usage(description: "\(flag) needs a value") }
            result[name] = value
        }
    }
    return result
}

func settings(_ options: [String: String], clientID: String, availabilityTopic: String? = nil) throws -> MQTTSettings {
    guard let port = options["port"].flatMap(Int.init) else { throw Usage(description: "--port is required") }
    return MQTTSettings(
        host: options["host"] ?? "127.0.0.1", port: port, clientID: clientID, keepalive: 60, protocolVersion: .v311,
        availabilityTopic: availabilityTopic, backoff: Backoff(initial: .milliseconds(100), maximum: .seconds(2)))
}

func publish(_ options: [String: String]) async throws {
    let connection = MQTTConnection(try settings(options, clientID: "mqtt-bench-\(getpid())"))
    let count = Int(options["count"] ?? "10000") ?? 10000
    let qos = Int(options["qos"] ?? "1") ?? 1
    let payload = try options["payload-file"].map { Array(try Data(contentsOf: URL(fileURLWithPath: $0))) } ?? Array("{}".utf8)
    let message = MQTTMessage(topic: options["topic"] ?? "bench/mqtt", payload: payload, qos: qos)
    let hold = Duration.seconds(120)
    connection.start()
    for await status in connection.statusUpdates() where status == .connected { break }
    let clock = ContinuousClock()
    let start = clock.now
    if options["serial"] != nil {
        for _ in 0..<count { try await connection.publish(message, hold: hold) }
    } else {
        let deliveries = (0..<count).map { _ in connection.enqueue(message, hold: hold) }
        for delivery in deliveries { try await delivery.delivered() }
    }
    let elapsed = clock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    print("\(count) messages in \(String(format: "%.3f", seconds)) s = \(Int(Double(count) / seconds)) msg/s")
    await connection.stop()
}

func hold(_ options: [String: String]) async throws {
    guard let clientID = options["client-id"], let topic = options["availability-topic"] else {
        throw Usage(description: "hold needs --client-id and --availability-topic")
    }
    let connection = MQTTConnection(try settings(options, clientID: clientID, availabilityTopic: topic))
    connection.start()
    for await status in connection.statusUpdates() where status == .connected {
        FileHandle.standardOutput.write(Data("connected\n".utf8))
    }
}

do {
    let arguments = CommandLine.arguments.dropFirst()
    switch arguments.first {
    case "publish": try await publish(try options(arguments.dropFirst()))
    case "hold": try await hold(try options(arguments.dropFirst()))
    default: throw Usage(description: "usage: mqtt-bench publish|hold --port P …")
    }
} catch {
    FileHandle.standardError.write(Data("mqtt-bench: \(error)\n".utf8))
    exit(error is Usage ? 64 : 1)
}

import BenchSupport
import Foundation
import Harness

// Place → MQTT message at a subscriber through the whole product, as a user runs
// it: `tagrouter simulate` (paced: 115200-baud UART and RF timing, as shipped),
// `tagrouter run` with a QoS 1 `mqtt` route, a mosquitto on a free loopback port
// and `mosquitto_sub` as the subscriber. Then the daemon's resident memory after
// the taps. Baseline in the same run, on the same simulator and subscriber: the
// detection time of libnfc's own `nfc-poll` plus the time a fresh `mosquitto_pub`
// takes to get a message to the subscriber — a shell pipeline doing the same job;
// and a Python bridge as users write one (scripts/bench/nfcpy-bridge.py: nfcpy
// polling the same simulator, paho-mqtt publishing to the same broker), its
// latency, CPU per tap and memory measured as the daemon's are. The daemon's resident memory is broken down from
// /proc/PID/smaps (anonymous, its own file, shared libraries); E2E_SMAPS=FILE keeps a copy of that smaps.
// Without PYTHON and BRIDGE_SCRIPT only the daemon is tapped, with no baseline (scripts/release/link-order.sh
// records the daemon's functions that way).
// Prints a Markdown table; progress goes to stderr.
//
// Usage: e2e-bench TAGROUTER_BINARY TAPS [PYTHON BRIDGE_SCRIPT]

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 2 || arguments.count == 4, let taps = Int(arguments[1]), taps > 0 else {
    FileHandle.standardError.write(Data("usage: e2e-bench TAGROUTER_BINARY TAPS [PYTHON BRIDGE_SCRIPT]\n".utf8))
    exit(64)
}
// Absolute: the tools run in a scratch directory.
let binary = arguments[0]
let bridgeTool = arguments.count == 4 ? (python: URL(fileURLWithPath: arguments[2]).path, script: URL(fileURLWithPath: arguments[3]).path) : nil
/// The bridge's taps: each of nfcpy's takes a few hundred milliseconds, so at most 200 (the issue's figure).
let bridgeTaps = min(taps, 200)
let tagrouter = URL(fileURLWithPath: binary).path  // absolute: the tools run in a scratch directory
let baselineRuns = min(50, max(10, taps / 10))  // fresh processes: 50 give a steady median
let tag = #"{"op":"place","type":"ntag215","uid":"04a224b2c35e80","records":[{"uri":"https://www.home-assistant.io/tag/front-door"}]}"#
let libnfcEnvironment = ["LIBNFC_AUTO_SCAN": "false", "LIBNFC_INTRUSIVE_SCAN": "false"]

/// (median, p99) in milliseconds.
func percentiles(_ samples: [Duration]) -> (median: Double, p99: Double) {
    let sorted = samples.sorted()
    let p99 = sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.99).rounded(.up)) - 1)]
    return (milliseconds(sorted[sorted.count / 2]), milliseconds(p99))
}

func format(_ figures: (median: Double, p99: Double)) -> String { String(format: "%.1f / %.1f ms", figures.median, figures.p99) }

/// The pseudo-terminal the simulator's link points at (nfcpy opens the device itself, not a link to it).
func simulatorPath(_ link: String) throws -> String {
    try FileManager.default.destinationOfSymbolicLink(atPath: link)
}

/// A random pause, so taps land at every phase of the reader's polling period.
func jitter() async throws { try await Task.sleep(for: .milliseconds(Int.random(in: 20...200))) }

/// What one tapped process measured.
struct Tapped {
    /// Place → arrival message at the subscriber, median and p99.
    var latency: (median: Double, p99: Double)
    var cpuPerTap: Double
    var residentMiB: Double
    /// Where the resident pages are, read at the same moment as `residentMiB`.
    var pages: ResidentPages?
}

/// Taps `count` times (place, wait for the `arrived` message, remove, wait for the `removed` one) on the reader
/// `process` reads, and measures its latency, CPU per tap and memory after the taps.
func tapped(
    _ process: RunningTool, _ name: String, _ count: Int, _ connection: ControlConnection, _ subscriber: Subscriber,
    arrived: String, removed: String
) async throws -> Tapped {
    let cpuBefore = process.cpuTime ?? .zero
    var latencies: [Duration] = []
    for index in 1...count {
        try await jitter()
        let placed = ContinuousClock.now
        try connection.send(tag)
        let arrivals = try await subscriber.waitFor(count: index) { $0.topic == arrived }
        latencies.append(arrivals[index - 1].arrival - placed)
        try connection.send(#"{"op":"remove"}"#)
        _ = try await subscriber.waitFor(count: index) { $0.topic == removed }
        if index % 20 == 0 { note("\(name): \(index) taps, last \(latencies[index - 1])") }
    }
    let cpuPerTap = milliseconds((process.cpuTime ?? .zero) - cpuBefore) / Double(count)
    return Tapped(
        latency: percentiles(latencies), cpuPerTap: cpuPerTap, residentMiB: Double(process.residentKiB ?? 0) / 1024,
        pages: ResidentPages(pid: process.pid))
}

/// Runs everything; locals, so the broker, subscriber and processes are stopped when it returns or throws.
func measure() async throws -> String {
    let directory = NSTemporaryDirectory() + "tagrouter-e2e-bench-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let link = directory + "/pn532", control = directory + "/pn532.sock"

    let broker = try await MosquittoBroker()
    let subscriber = try Subscriber(port: broker.port, filter: "bench/#", qos: 1)
    try await subscriber.waitUntilSubscribed()
    let simulator = try RunningTool(tagrouter, ["simulate", "--link", link, "--control", control], directory: directory)
    try await simulator.waitForStdout(containing: "control: \(control)")
    let config = directory + "/tagrouter.yaml"
    try """
        state_dir: \(directory)/state
        readers:
          - { name: front-door, device: "pn532_uart:\(link)", cooldown: 0s, exit_delay: 0s }
        mqtt: { host: 127.0.0.1, port: \(broker.port), client_id: bench, availability_topic: bench/status }
        routes:
          - name: arrivals
            actions: [{ mqtt: { topic: "bench/tagrouter/{{reader}}", qos: 1 } }]
          - name: removals
            match: { event: tag.removed }
            actions: [{ mqtt: { topic: "bench/removed/{{reader}}", qos: 1 } }]
        """.write(toFile: config, atomically: true, encoding: .utf8)
    // A control socket of its own: on the default path, a daemon already running elsewhere on the machine would send this
    // one down another start-up path (a warning, no socket), with other code and other memory.
    let daemon = try RunningTool(
        tagrouter, ["run", "--config", config, "--log-format", "json", "--control", directory + "/control.sock"],
        environment: libnfcEnvironment, directory: directory)
    try await subscriber.waitFor("the daemon online") { $0.topic == "bench/status" && $0.text == "online" }

    // tagrouter: place → message, then remove → tag.removed message, TAPS times.
    let connection = try ControlConnection(path: control)
    let ours = try await tapped(
        daemon, "tagrouter", taps, connection, subscriber, arrived: "bench/tagrouter/front-door", removed: "bench/removed/front-door")
    daemon.signal(SIGTERM)
    let daemonEnd = try await daemon.termination()
    guard daemonEnd.status == .exited(0) else { throw TestFailure(description: "tagrouter run ended \(daemonEnd.status)") }
    if let path = ProcessInfo.processInfo.environment["E2E_SMAPS"], let smaps = ours.pages?.smaps {
        try smaps.write(toFile: path, atomically: true, encoding: .utf8)
    }
    let breakdown = ours.pages?.breakdown ?? "—"
    guard let bridgeTool else {
        return """
            | figure (\(taps) taps, no baseline) | tagrouter run (`mqtt`, QoS 1) |
            | --- | --- |
            | place → message at the subscriber, median / p99 | \(format(ours.latency)) |
            | resident memory (VmRSS) after the taps | \(String(format: "%.1f MiB", ours.residentMiB)) |
            | … where it is (`/proc/PID/smaps`) | \(breakdown) |
            | CPU per tap | \(String(format: "%.2f ms", ours.cpuPerTap)) |
            """
    }

    // Baseline 1: nfc-poll (started afresh for each tap, as a script would) on the same simulator.
    var detections: [Duration] = []
    var pollResidentKiB = 0
    for _ in 1...baselineRuns {
        let poll = try RunningTool("/usr/bin/stdbuf", ["-oL", "/usr/bin/nfc-poll"], environment: libnfcEnvironment.merging(["LIBNFC_DEVICE": "pn532_uart:\(link)"]) { $1 }, directory: directory)
        try await poll.waitForStdout(containing: "NFC device will poll")
        pollResidentKiB = max(pollResidentKiB, poll.residentKiB ?? 0)
        try await jitter()
        let placed = ContinuousClock.now
        try connection.send(tag)
        detections.append(try await poll.waitForStdout(containing: "ISO/IEC 14443A").arrival - placed)
        try connection.send(#"{"op":"remove"}"#)
        _ = try await poll.termination()  // nfc-poll waits for the tag to leave, then exits by itself
    }
    note("nfc-poll: \(baselineRuns) taps")

    // Baseline 2: a fresh mosquitto_pub (QoS 1) publishing the same event JSON to the same broker, start → subscriber.
    let payload = subscriber.messages.first { $0.topic == "bench/tagrouter/front-door" }?.text ?? "{}"
    var publishes: [Duration] = []
    for index in 1...baselineRuns {
        let started = ContinuousClock.now
        let publisher = try RunningTool("/usr/bin/mosquitto_pub", ["-h", "127.0.0.1", "-p", String(broker.port), "-q", "1", "-t", "bench/mosquitto_pub", "-m", payload])
        let arrivals = try await subscriber.waitFor(count: index) { $0.topic == "bench/mosquitto_pub" }
        publishes.append(arrivals[index - 1].arrival - started)
        _ = try await publisher.termination()
    }
    note("mosquitto_pub: \(baselineRuns) publishes")

    // Baseline 3: the nfcpy + paho-mqtt bridge on the same simulator and broker, tapped as the daemon was.
    let bridge = try RunningTool(
        bridgeTool.python, [bridgeTool.script, try simulatorPath(link), "127.0.0.1", String(broker.port), "bench/bridge"], directory: directory)
    try await bridge.waitForStdout(containing: "ready", timeout: .seconds(30))
    let theirs = try await tapped(bridge, "nfcpy bridge", bridgeTaps, connection, subscriber, arrived: "bench/bridge/arrived", removed: "bench/bridge/removed")
    bridge.signal(SIGTERM)
    _ = try await bridge.termination()
    simulator.signal(SIGTERM)
    _ = try await simulator.termination()

    let detection = percentiles(detections), publish = percentiles(publishes)
    let ratio = { (ours: Double, theirs: Double) in String(format: "%.2f×", ours / theirs) }
    return """
        ### End to end: tag placed on the PN532 simulator (115200 baud, paced) → MQTT message at a subscriber

        | figure | tagrouter run (`mqtt`, QoS 1) | baseline: Python nfcpy + paho-mqtt bridge (`nfcpy-bridge.py`) | tagrouter ÷ bridge | baseline: nfc-poll detection + mosquitto_pub → subscriber |
        | --- | --- | --- | --- | --- |
        | place → message at the subscriber, median / p99 (\(taps) taps; bridge \(bridgeTaps); nfc-poll and mosquitto_pub \(baselineRuns) of each) | \(format(ours.latency)) | \(format(theirs.latency)) | \(ratio(ours.latency.median, theirs.latency.median)) | \(format((detection.median + publish.median, detection.p99 + publish.p99))) (sum of the two parts below) |
        | … nfc-poll, placed → tag printed | — | — | | \(format(detection)) |
        | … mosquitto_pub started → message at the subscriber | — | — | | \(format(publish)) |
        | resident memory (VmRSS) after the taps | \(String(format: "%.1f MiB", ours.residentMiB)) | \(String(format: "%.1f MiB", theirs.residentMiB)) | \(ratio(ours.residentMiB, theirs.residentMiB)) | nfc-poll alone (no MQTT): \(String(format: "%.1f MiB", Double(pollResidentKiB) / 1024)) |
        | … where it is (`/proc/PID/smaps`) | \(breakdown) | \(theirs.pages?.breakdown ?? "—") | | |
        | CPU per tap (user + system, place → message → removal → message) | \(String(format: "%.2f ms", ours.cpuPerTap)) | \(String(format: "%.2f ms", theirs.cpuPerTap)) | \(ratio(ours.cpuPerTap, theirs.cpuPerTap)) | — |
        """
}

do {
    print(try await measure())
} catch {
    note("e2e-bench: \(error)")
    exit(1)
}

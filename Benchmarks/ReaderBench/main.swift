import BenchSupport
import Foundation
import Harness
import NDEF
import PN532Sim
import TagKit

// The reader's figures on a paced PN532 simulator (115200 baud, RF timing,
// InAutoPoll slots, InListPassiveTarget attempts), per polling mode, the default
// (auto-poll) first as the baseline: `tagrouter run` reads the simulator and routes
// every arrival to a `feedback: success` action; `tagrouter events` follows it.
// Measured: tag placed → its `tag.arrived` record on the event stream, placed → the
// feedback action's delivery record (a libnfc reader has no LEDs: this is the
// moment the pattern is handed to the reader's feedback), and with no tag the
// daemon's CPU and the serial line's traffic. Beside them libnfc's own `nfc-poll`
// on the same simulator. Then `polling: fast` taken apart (issue 29): placed →
// `tag.arrived` on an idle reader and after a quick swap (the tag before lifted
// 0.2–0.4 s earlier, within its 0.5 s exit delay), with and without the originality
// signature (`originality_check`), beside the idle reader reading the signature — the
// figure before — as the baseline. Prints Markdown tables; progress goes to stderr.
//
// Usage: reader-bench TAGROUTER_BINARY [TAPS] [IDLE_SECONDS] [SWAP_TAPS]

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: reader-bench TAGROUTER_BINARY [TAPS] [IDLE_SECONDS]\n".utf8))
    exit(64)
}
let tagrouter = arguments[1]
let taps = arguments.count > 2 ? Int(arguments[2]) ?? 200 : 200
let idleSeconds = arguments.count > 3 ? Int(arguments[3]) ?? 30 : 30
let swapTaps = arguments.count > 4 ? Int(arguments[4]) ?? 100 : 100
let baselineTaps = max(10, taps / 4)

let uid: [UInt8] = [0x04, 0xA2, 0x24, 0xB2, 0xC3, 0x5E, 0x80]
let message = NDEFMessage(records: [.uri("https://www.home-assistant.io/tag/front-door")]).encoded()
let tag = try Type2Tag(.ntag215, uid: uid, message: message)
/// The tags placed in turn in the quick-swap runs. Three: with two, a tag came back one swap after its own lift,
/// often within the 0.5 s exit delay (two 0.2 s gaps and a read), which is the same presence by design — no
/// arrival, and the tap counted as missed.
let swapTags = [tag] + (try [[0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66], [0x04, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC]].map {
    try Type2Tag(.ntag215, uid: $0, message: message)
})

/// Median and 90th percentile in milliseconds, and the taps that got no record in time.
func summary(_ samples: [Duration], missed: Int) -> String {
    guard !samples.isEmpty else { return "no event (\(missed) missed)" }
    let sorted = samples.sorted()
    let p90 = sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.9).rounded(.up)) - 1)]
    let text = String(format: "%.1f / %.1f ms", milliseconds(sorted[sorted.count / 2]), milliseconds(p90))
    return text + (missed > 0 ? " (\(missed) missed)" : "")
}

/// A random pause so taps land at every phase of the polling.
func jitter() async throws { try await Task.sleep(for: .milliseconds(Int.random(in: 50...350))) }

/// Asks `tool` to stop and waits until it has.
func stop(_ tool: RunningTool) async throws {
    tool.signal(SIGTERM)
    _ = try await tool.termination()
}

struct Timeout: Error, CustomStringConvertible {
    var description: String
}

/// Waits until `condition` holds (checked every 10 ms); throws after 20 s.
func waitUntil(_ what: String, _ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(20)
    while !condition() {
        guard ContinuousClock.now < deadline else { throw Timeout(description: "timed out waiting for \(what)") }
        try await Task.sleep(for: .milliseconds(10))
    }
}

/// What one polling mode costs and gives.
struct Figures {
    var arrival = "", feedback = "", cpu = "", traffic = "", rss = ""
}

/// The daemon's config: one reader on `device` in `polling` mode, every arrival shown as `success`.
func config(device: String, polling: String, directory: String, exitDelay: String = "0s", originalityCheck: String = "always") -> String {
    """
    state_dir: \(directory)/state
    readers:
      - name: bench
        device: "\(device)"
        polling: \(polling)
        cooldown: 0s
        exit_delay: \(exitDelay)
        originality_check: \(originalityCheck)
    routes:
      - name: tap
        actions: [{ feedback: success }]
    """
}

/// `tagrouter run` on a paced simulator with `config`, followed by `tagrouter events --json`, once the reader polls.
/// The caller stops them (and closes the simulator, removes the folder) when it is done.
struct RunningDaemon {
    let sim: PN532Simulator
    let directory: String
    let daemon: RunningTool
    let events: RunningTool

    init(config: (_ device: String, _ directory: String) -> String) async throws {
        sim = try PN532Simulator(pacing: .uart115200)
        directory = NSTemporaryDirectory() + "reader-bench-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try config(sim.connstring, directory).write(toFile: directory + "/tagrouter.yaml", atomically: true, encoding: .utf8)
        let socket = directory + "/control.sock"
        daemon = try RunningTool(
            tagrouter, ["run", "--config", directory + "/tagrouter.yaml", "--control", socket],
            environment: ["LIBNFC_AUTO_SCAN": "false"], directory: directory)
        try await waitUntil("the control socket") { FileManager.default.fileExists(atPath: socket) }
        events = try RunningTool(tagrouter, ["events", "--json", "--control", socket])
        try await events.waitForStderr(containing: "following the events")
        // The reader polls once it is connected.
        let sim = sim
        try await waitUntil("the reader's first poll") { sim.counters.commands.keys.contains { $0 == "InAutoPoll" || $0 == "InListPassiveTarget" } }
    }

    func close() async throws {
        try await stop(events)
        try await stop(daemon)
        sim.close()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// `tagrouter run` in one polling mode, followed by `tagrouter events`: latencies over `taps`, then the idle costs.
func measureDaemon(polling: String) async throws -> Figures {
    let running = try await RunningDaemon { config(device: $0, polling: polling, directory: $1) }
    let (sim, daemon, events) = (running.sim, running.daemon, running.events)

    var arrivals: [Duration] = [], feedbacks: [Duration] = []
    var missed = 0
    for _ in 0..<taps {
        try await jitter()
        let seen = events.stdout.count
        let placed = ContinuousClock.now
        sim.place(tag)
        do {
            arrivals.append(try await events.waitForStdout(containing: "\"tag.arrived\"", after: seen).arrival - placed)
            feedbacks.append(try await events.waitForStdout(containing: "\"tap.0.feedback\"", after: seen).arrival - placed)
        } catch {
            missed += 1
            note("\(polling): \(error)")
        }
        sim.removeAll()
        _ = try? await events.waitForStdout(containing: "\"tag.removed\"", after: seen, timeout: .seconds(2))
        note("\(polling): tap \(arrivals.count + missed), arrival \(arrivals.last.map { "\($0)" } ?? "-"), feedback \(feedbacks.last.map { "\($0)" } ?? "-")")
    }

    let cpuBefore = daemon.cpuTime ?? .zero
    let trafficBefore = sim.counters
    let started = ContinuousClock.now
    try await Task.sleep(for: .seconds(idleSeconds))
    let elapsed = milliseconds(ContinuousClock.now - started) / 1000
    let cpu = milliseconds((daemon.cpuTime ?? .zero) - cpuBefore) / 1000 / elapsed * 100
    let trafficAfter = sim.counters
    let bytes = Double(trafficAfter.bytesIn + trafficAfter.bytesOut - trafficBefore.bytesIn - trafficBefore.bytesOut) / elapsed
    let commands = Double(trafficAfter.commands.values.reduce(0, +) - trafficBefore.commands.values.reduce(0, +)) / elapsed
    // 10 bit times a byte: the line carries 11,520 bytes/s each way.
    let busiest = Double(max(trafficAfter.bytesIn - trafficBefore.bytesIn, trafficAfter.bytesOut - trafficBefore.bytesOut)) / elapsed
    let figures = Figures(
        arrival: summary(arrivals, missed: missed), feedback: summary(feedbacks, missed: missed),
        cpu: String(format: "%.2f %%", cpu),
        traffic: String(format: "%.1f commands/s, %.0f bytes/s (%.1f %% of the busier direction)", commands, bytes, busiest / 11_520 * 100),
        rss: "\((daemon.residentKiB ?? 0) / 1024) MiB")
    try await running.close()
    return figures
}

/// `polling: fast`, the default 0.5 s exit delay: placed → `tag.arrived` over `swapTaps` taps, with the
/// signature read or not; `swapping`: each tag placed 0.2–0.4 s after the one before was lifted (a quick
/// swap, while that one waits out its exit delay), else on an idle reader (after the removal was reported).
func measureFast(swapping: Bool, signature: Bool) async throws -> String {
    let running = try await RunningDaemon {
        config(device: $0, polling: "fast", directory: $1, exitDelay: "500ms", originalityCheck: signature ? "always" : "never")
    }
    let (sim, events) = (running.sim, running.events)
    let label = "fast, \(swapping ? "quick swap" : "idle"), signature \(signature ? "read" : "not read")"
    var arrivals: [Duration] = []
    var missed = 0
    for index in 0..<swapTaps {
        if swapping {
            try await Task.sleep(for: .milliseconds(Int.random(in: 200...400)))
        } else {
            try await jitter()
        }
        let seen = events.stdout.count
        let placed = ContinuousClock.now
        sim.place(swapTags[index % swapTags.count])
        let arrival: RunningTool.Line
        do {
            arrival = try await events.waitForStdout(containing: "\"tag.arrived\"", after: seen)
        } catch {
            missed += 1
            note("\(label): \(error)")
            sim.removeAll()
            continue
        }
        arrivals.append(arrival.arrival - placed)
        // The signature read or not, as asked: else the table would compare the wrong things.
        guard arrival.text.contains("\"genuine\"") == signature else {
            throw TestFailure(description: "\(label): the arrival \(signature ? "lacks" : "has") a signature check: \(arrival.text)")
        }
        sim.removeAll()
        if !swapping { _ = try? await events.waitForStdout(containing: "\"tag.removed\"", after: seen, timeout: .seconds(3)) }
        note("\(label): tap \(index + 1), arrival \(arrivals.last.map { "\($0)" } ?? "-")")
    }
    try await running.close()
    return summary(arrivals, missed: missed)
}

/// libnfc's `nfc-poll` (InAutoPoll, 300 ms period, 5 modulations), started afresh for every tap: detection only.
func measureNFCPoll() async throws -> (latency: String, cpu: String) {
    let sim = try PN532Simulator(pacing: .uart115200)
    defer { sim.close() }
    let environment = ["LIBNFC_DEVICE": sim.connstring, "LIBNFC_AUTO_SCAN": "false", "LIBNFC_INTRUSIVE_SCAN": "false"]
    var samples: [Duration] = []
    var missed = 0
    for _ in 0..<baselineTaps {
        let poll = try RunningTool("/usr/bin/stdbuf", ["-oL", "/usr/bin/nfc-poll"], environment: environment)
        do {
            try await poll.waitForStdout(containing: "NFC device will poll")
            try await jitter()
            let placed = ContinuousClock.now
            sim.place(tag)
            samples.append(try await poll.waitForStdout(containing: "ISO/IEC 14443A").arrival - placed)
        } catch {
            missed += 1
            note("nfc-poll: \(error)")
        }
        sim.removeAll()
        try await stop(poll)
        note("nfc-poll: tap \(samples.count + missed), \(samples.last.map { "\($0)" } ?? "")")
    }
    let poll = try RunningTool("/usr/bin/stdbuf", ["-oL", "/usr/bin/nfc-poll"], environment: environment)
    try await poll.waitForStdout(containing: "NFC device will poll")
    let before = poll.cpuTime ?? .zero
    try await Task.sleep(for: .seconds(idleSeconds))
    let cpu = milliseconds((poll.cpuTime ?? .zero) - before) / 1000 / Double(idleSeconds) * 100
    try await stop(poll)
    return (summary(samples, missed: missed), String(format: "%.2f %%", cpu))
}

var measured: [Figures] = []
for mode in ["auto-poll", "fast", "list-passive"] { measured.append(try await measureDaemon(polling: mode)) }
let nfcPoll = try await measureNFCPoll()
let figures = measured
var fastFigures: [String] = []
for (swapping, signature) in [(false, true), (false, false), (true, true), (true, false)] {
    fastFigures.append(try await measureFast(swapping: swapping, signature: signature))
}

func row(_ label: String, _ value: (Figures) -> String, baseline: String) -> String {
    "| \(label) | " + figures.map(value).joined(separator: " | ") + " | \(baseline) |"
}
print("""
    ### Reader (PN532 simulator at 115200 baud, NTAG215 with one URI record)

    | figure | baseline: `polling: auto-poll` (default) | `polling: fast` | `polling: list-passive` (100 ms) | libnfc `nfc-poll` (detection only) |
    | --- | --- | --- | --- | --- |
    \(row("placed → `tag.arrived` on the event stream, median / p90 (\(taps) taps; nfc-poll \(baselineTaps))", \.arrival, baseline: nfcPoll.latency))
    \(row("placed → feedback action delivered, median / p90", \.feedback, baseline: "–"))
    \(row("idle CPU, % of one core over \(idleSeconds) s, reader attached, no tag", \.cpu, baseline: nfcPoll.cpu))
    \(row("serial line while idle (both ways)", \.traffic, baseline: "–"))
    \(row("resident memory of the daemon", \.rss, baseline: "–"))

    ### `polling: fast`: an idle reader and a quick swap, with and without the originality signature

    | placed → `tag.arrived` on the event stream, median / p90 (\(swapTaps) taps each; exit delay 0.5 s) | baseline: idle reader, signature read | idle reader, no signature | quick swap (the tag before lifted 0.2–0.4 s earlier), signature read | quick swap, no signature |
    | --- | --- | --- | --- | --- |
    | `polling: fast` | \(fastFigures.joined(separator: " | ")) |
    """)

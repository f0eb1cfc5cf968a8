import Foundation
import NDEF
import PN532Sim
import TagKit
import TestSupport

// The reader's figures on a paced PN532 simulator (115200 baud, RF timing,
// InAutoPoll slots): detection latency (tag placed → `tag.arrived` printed by
// `tagrouter watch`), idle CPU and resident memory, for both polling modes,
// beside libnfc's own `nfc-poll` on the same simulator. Prints a Markdown table;
// progress goes to stderr.
//
// Usage: reader-bench TAGROUTER_BINARY [TAPS] [IDLE_SECONDS]

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: reader-bench TAGROUTER_BINARY [TAPS] [IDLE_SECONDS]\n".utf8))
    exit(64)
}
let tagrouter = arguments[1]
let taps = arguments.count > 2 ? Int(arguments[2]) ?? 200 : 200
let idleSeconds = arguments.count > 3 ? Int(arguments[3]) ?? 30 : 30
let baselineTaps = max(10, taps / 4)

let uid: [UInt8] = [0x04, 0xA2, 0x24, 0xB2, 0xC3, 0x5E, 0x80]
let message = NDEFMessage(records: [.uri("https://www.home-assistant.io/tag/front-door")]).encoded()
let tag = try Type2Tag(.ntag215, uid: uid, message: message)

func note(_ text: String) { FileHandle.standardError.write(Data((text + "\n").utf8)) }

/// Median and 99th percentile in milliseconds, and the taps that got no event in time.
func summary(_ samples: [Duration], missed: Int) -> String {
    guard !samples.isEmpty else { return "no event (\(missed) missed)" }
    let sorted = samples.sorted()
    func ms(_ duration: Duration) -> String { String(format: "%.1f", Double(duration.components.attoseconds) / 1e15 + Double(duration.components.seconds) * 1000) }
    let p99 = sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.99).rounded(.up)) - 1)]
    return "\(ms(sorted[sorted.count / 2])) / \(ms(p99)) ms" + (missed > 0 ? " (\(missed) missed)" : "")
}

/// A random pause so taps land at every phase of the polling period.
func jitter() async throws { try await Task.sleep(for: .milliseconds(Int.random(in: 50...350))) }

/// Asks `tool` to stop and waits until it has.
func stop(_ tool: RunningTool) async throws {
    tool.signal(SIGTERM)
    _ = try await tool.termination()
}

/// `tagrouter watch` in one polling mode: latency over `taps`, then idle CPU and memory.
func measureTagrouter(polling: String) async throws -> (latency: String, cpu: String, rss: String) {
    let sim = try PN532Simulator(pacing: .uart115200)
    defer { sim.close() }
    let watch = try RunningTool(tagrouter, ["watch", "--device", sim.connstring, "--exit-delay", "0", "--polling", polling])
    try await watch.waitForStdout(containing: "reader.connected")
    var samples: [Duration] = []
    var missed = 0
    for _ in 0..<taps {
        try await jitter()
        let seen = watch.stdout.count
        let placed = ContinuousClock.now
        sim.place(tag)
        do {
            samples.append(try await watch.waitForStdout(containing: "tag.arrived", after: seen).arrival - placed)
        } catch {
            missed += 1
            note("tagrouter \(polling): \(error)")
        }
        sim.removeAll()
        _ = try? await watch.waitForStdout(containing: "tag.removed", after: seen, timeout: .seconds(2))
        note("tagrouter \(polling): tap \(samples.count + missed), \(samples.last.map { "\($0)" } ?? "")")
    }
    let (cpu, rss) = try await idle(watch)
    try await stop(watch)
    return (summary(samples, missed: missed), cpu, rss)
}

/// CPU (percent of one core) over `idleSeconds` with no tag, and resident memory.
func idle(_ tool: RunningTool) async throws -> (cpu: String, rss: String) {
    let before = tool.cpuTime ?? .zero
    try await Task.sleep(for: .seconds(idleSeconds))
    let used = (tool.cpuTime ?? .zero) - before
    let percent = (Double(used.components.seconds) + Double(used.components.attoseconds) / 1e18) / Double(idleSeconds) * 100
    return (String(format: "%.2f %%", percent), "\((tool.residentKiB ?? 0) / 1024) MiB")
}

/// libnfc's `nfc-poll` (InAutoPoll, 300 ms period, 5 modulations), started afresh for every tap.
func measureNFCPoll() async throws -> (latency: String, cpu: String, rss: String) {
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
    let (cpu, rss) = try await idle(poll)
    try await stop(poll)
    return (summary(samples, missed: missed), cpu, rss)
}

let autoPoll = try await measureTagrouter(polling: "auto-poll")
let listPassive = try await measureTagrouter(polling: "list-passive")
let nfcPoll = try await measureNFCPoll()
print("""
    ### Reader (PN532 simulator at 115200 baud, NTAG215 with one URI record)

    | figure | tagrouter (auto-poll) | tagrouter (list-passive, 100 ms) | baseline: nfc-poll |
    | --- | --- | --- | --- |
    | detection latency, placed → event, median / p99 (\(taps) taps; nfc-poll \(baselineTaps)) | \(autoPoll.latency) | \(listPassive.latency) | \(nfcPoll.latency) |
    | idle CPU, % of one core over \(idleSeconds) s, reader attached, no tag | \(autoPoll.cpu) | \(listPassive.cpu) | \(nfcPoll.cpu) |
    | resident memory | \(autoPoll.rss) | \(listPassive.rss) | \(nfcPoll.rss) |
    """)

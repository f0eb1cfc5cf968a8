import Foundation
import NDEF
import PN532Sim
import TagKit

// The reader's figures on a paced PN532 simulator (115200 baud, RF timing,
// InAutoPoll slots): detection latency (tag placed → `tag.arrived` printed by
// `tagrouter watch`), idle CPU and resident memory, for both polling modes,
// beside libnfc's own `nfc-poll` on the same simulator. Prints a Markdown table.
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

/// Median and 99th percentile in milliseconds.
func summary(_ samples: [Duration]) -> String {
    let sorted = samples.sorted()
    func ms(_ duration: Duration) -> String { String(format: "%.1f", Double(duration.components.attoseconds) / 1e15 + Double(duration.components.seconds) * 1000) }
    let p99 = sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.99).rounded(.up)) - 1)]
    return "\(ms(sorted[sorted.count / 2])) / \(ms(p99)) ms"
}

/// One line on stderr per tap, so a slow run shows where it is.
func progress(_ what: String, _ samples: [Duration]) {
    FileHandle.standardError.write(Data("\(what): tap \(samples.count), \(samples.last.map { "\($0)" } ?? "")\n".utf8))
}

/// A random pause so taps land at every phase of the polling period.
func jitter() { Thread.sleep(forTimeInterval: Double.random(in: 0.05...0.35)) }

/// `tagrouter watch` in one polling mode: latency over `taps`, then idle CPU and memory.
func measureTagrouter(polling: String) throws -> (latency: String, cpu: String, rss: String) {
    let sim = try PN532Simulator(pacing: .uart115200)
    defer { sim.close() }
    let watch = try ChildProcess(tagrouter, ["watch", "--device", sim.connstring, "--exit-delay", "0", "--polling", polling])
    defer { watch.stop() }
    try watch.waitFor("reader.connected")
    var samples: [Duration] = []
    for _ in 0..<taps {
        jitter()
        let placed = ContinuousClock.now
        sim.place(tag)
        samples.append(try watch.waitFor("tag.arrived") - placed)
        sim.removeAll()
        try watch.waitFor("tag.removed")
        progress("tagrouter \(polling)", samples)
    }
    let (cpu, rss) = try idle(watch)
    return (summary(samples), cpu, rss)
}

/// CPU (percent of one core) over `idleSeconds` with no tag, and resident memory.
func idle(_ child: ChildProcess) throws -> (cpu: String, rss: String) {
    let before = child.cpuTime
    Thread.sleep(forTimeInterval: Double(idleSeconds))
    let used = child.cpuTime - before
    let percent = (Double(used.components.seconds) + Double(used.components.attoseconds) / 1e18) / Double(idleSeconds) * 100
    return (String(format: "%.2f %%", percent), "\(child.residentKiB / 1024) MiB")
}

/// libnfc's `nfc-poll` (InAutoPoll, 300 ms period, 5 modulations), started afresh for every tap.
func measureNFCPoll() throws -> (latency: String, cpu: String, rss: String) {
    let sim = try PN532Simulator(pacing: .uart115200)
    defer { sim.close() }
    let environment = ["LIBNFC_DEVICE": sim.connstring, "LIBNFC_AUTO_SCAN": "false", "LIBNFC_INTRUSIVE_SCAN": "false"]
    var samples: [Duration] = []
    for _ in 0..<baselineTaps {
        let poll = try ChildProcess("/usr/bin/stdbuf", ["-oL", "/usr/bin/nfc-poll"], environment: environment)
        try poll.waitFor("NFC device will poll")
        jitter()
        let placed = ContinuousClock.now
        sim.place(tag)
        samples.append(try poll.waitFor("ISO/IEC 14443A") - placed)
        progress("nfc-poll", samples)
        sim.removeAll()
        poll.stop()
    }
    let poll = try ChildProcess("/usr/bin/stdbuf", ["-oL", "/usr/bin/nfc-poll"], environment: environment)
    defer { poll.stop() }
    try poll.waitFor("NFC device will poll")
    let (cpu, rss) = try idle(poll)
    return (summary(samples), cpu, rss)
}

let autoPoll = try measureTagrouter(polling: "auto-poll")
let listPassive = try measureTagrouter(polling: "list-passive")
let nfcPoll = try measureNFCPoll()
print("""
    ### Reader (PN532 simulator at 115200 baud, NTAG215 with one URI record)

    | figure | tagrouter (auto-poll) | tagrouter (list-passive, 100 ms) | baseline: nfc-poll |
    | --- | --- | --- | --- |
    | detection latency, placed → event, median / p99 (\(taps) taps; nfc-poll \(baselineTaps)) | \(autoPoll.latency) | \(listPassive.latency) | \(nfcPoll.latency) |
    | idle CPU, % of one core over \(idleSeconds) s, reader attached, no tag | \(autoPoll.cpu) | \(listPassive.cpu) | \(nfcPoll.cpu) |
    | resident memory | \(autoPoll.rss) | \(listPassive.rss) | \(nfcPoll.rss) |
    """)

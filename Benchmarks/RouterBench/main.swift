@preconcurrency import Glibc
import Foundation
import OrderedJSON
import SystemKit
import TagCore
import TagRouter
import TagRuntime

// router-bench: routing throughput through 100 routes with the `log` action
// writing to /dev/null (the daemon's event buffer in front, as in `tagrouter run`),
// and the latency the router adds per event, each beside a bare AsyncStream
// pass-through doing the same work, in the same run; the cost of the spool's
// write-ahead beside the same action without it (SpoolBench.swift); and the cost
// of one event → JSON beside Foundation's JSONSerialization (EventJSONBench.swift).
// Prints `name value` lines; scripts/bench/router.sh makes the table.

/// The bench's sizes: `router-bench [EVENTS]` (or `router-bench --event-json-calls N`, see EventJSONBench), `ROUTER_BENCH_ROUTES` (default 100).
enum Sizes {
    static let routes = Int(ProcessInfo.processInfo.environment["ROUTER_BENCH_ROUTES"] ?? "") ?? 100
    static let throughputEvents = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 100_000
    static let latencySamples = 2_000
}

// Results go to the real stdout; the `log` action's stdout becomes /dev/null.
let results = fdopen(dup(STDOUT_FILENO), "w")!
let devNull = open("/dev/null", O_WRONLY)
dup2(devNull, STDOUT_FILENO)
Log.configure(level: .error)

@MainActor func report(_ name: String, _ value: Double) {
    fputs("\(name) \(value)\n", results)
    fflush(results)
}

/// 100 routes; only the last matches the bench's events, so every event is tried against all of them.
/// Without a spool: these figures are the routing path (the spool's cost is SpoolBench's).
func config(action: String) -> String {
    var yaml = "state_dir: /tmp/router-bench-\(getpid())\nroutes:\n"
    for index in 0..<Sizes.routes {
        let uri = index == Sizes.routes - 1 ? "https://example.com/tap/*" : "https://example.com/route-\(index)/*"
        yaml += "  - name: route-\(index)\n    match: { uri: \"\(uri)\", event: tag.arrived }\n    actions: [{ \(action): { queue: 1000000, spool: false } }]\n"
    }
    return yaml
}

func event(id: String) -> TagEvent {
    TagEvent(
        kind: .tagArrived, id: id, reader: "bench", tag: TagInfo(uid: TagUID(bytes: [4, 0xa2, 0x24, 0xb2, 0xc3, 0x5e, 0x80]), type: "ntag215", nfcForumType: 2),
        ndef: .object(JSONObject(["records": [["tnf": 1, "type": "U", "id": "", "uri": "https://example.com/tap/1"]]])), uri: "https://example.com/tap/1")
}

func makeConfig(action: String) throws -> RouterConfig { try makeConfig(yaml: config(action: action)) }

func makeConfig(yaml: String) throws -> RouterConfig {
    let loader = ConfigLoader(registry: PluginRegistry([LogPlugin.self, StampPlugin.self]))
    return try loader.load(text: yaml, file: "bench.yaml")
}

/// Events per second through the router: the event buffer → 100 routes → `log` → /dev/null,
/// until the router has delivered every event and stopped.
func routerThroughput() async throws -> Double { try await throughput(through: makeConfig(action: "log")) }

/// Events per second through the daemon's routing of `config`, all offered at once.
func throughput(through config: RouterConfig) async throws -> Double {
    let events = (0..<Sizes.throughputEvents).map { event(id: String($0)) }
    let buffer = EventBuffer(capacity: Sizes.throughputEvents)
    let start = ContinuousClock.now
    async let routing: Void = RoutingService(config: config, events: buffer).run()
    for event in events { buffer.offer(event) }
    buffer.finish()
    try await routing
    return Double(Sizes.throughputEvents) / (ContinuousClock.now - start).seconds
}

/// The same events through a bare AsyncStream whose consumer writes the same line to /dev/null.
func baselineThroughput() async -> Double {
    let events = (0..<Sizes.throughputEvents).map { event(id: String($0)) }
    let (stream, continuation) = AsyncStream.makeStream(of: TagEvent.self)
    let start = ContinuousClock.now
    let consumer = Task {
        for await event in stream {
            let line = JSONValue.object(JSONObject(["route": .string("route-\(Sizes.routes - 1)"), "event": event.json])).serialized() + "\n"
            _ = line.withCString { write(STDOUT_FILENO, $0, strlen($0)) }
        }
    }
    for event in events { continuation.yield(event) }
    continuation.finish()
    await consumer.value
    return Double(Sizes.throughputEvents) / (ContinuousClock.now - start).seconds
}

/// Median and p99 of send → action, one event at a time.
func latencies(_ send: (TagEvent) -> Void) async -> (median: Double, p99: Double) {
    var iterator = StampPlugin.arrivals.stream.makeAsyncIterator()
    var samples: [Double] = []
    for index in 0..<(Sizes.latencySamples + 200) {
        send(event(id: Clock.nowID))
        guard let latency = await iterator.next() else { break }
        if index >= 200 { samples.append(latency.seconds * 1e6) }  // the first 200 warm up
    }
    samples.sort()
    return (samples[samples.count / 2], samples[samples.count * 99 / 100])
}

func routerLatency() async throws -> (median: Double, p99: Double) { try await latency(through: makeConfig(action: "stamp")) }

/// Send → `stamp` action starts through the daemon's routing of `config`, one event at a time.
func latency(through config: RouterConfig) async throws -> (median: Double, p99: Double) {
    let buffer = EventBuffer(capacity: 1000)
    async let routing: Void = RoutingService(config: config, events: buffer).run()
    let result = await latencies { buffer.offer($0) }
    buffer.finish()
    try await routing
    return result
}

func baselineLatency() async -> (median: Double, p99: Double) {
    let (stream, continuation) = AsyncStream.makeStream(of: TagEvent.self)
    let consumer = Task {
        for await event in stream { StampPlugin.arrivals.continuation.yield(Clock.elapsed(since: event.id)) }
    }
    let result = await latencies { continuation.yield($0) }
    continuation.finish()
    await consumer.value
    return result
}

if CommandLine.arguments.count >= 3, CommandLine.arguments[1] == "--event-json-calls", let count = Int(CommandLine.arguments[2]) {
    report("event_json_bytes", Double(EventJSONBench.calls(count, tree: CommandLine.arguments.dropFirst(3).first == "tree")))
    exit(0)
}

do {
    report("router_events_per_s", try await routerThroughput())
    report("baseline_events_per_s", await baselineThroughput())
    let router = try await routerLatency()
    let baseline = await baselineLatency()
    report("router_latency_median_us", router.median)
    report("router_latency_p99_us", router.p99)
    report("baseline_latency_median_us", baseline.median)
    report("baseline_latency_p99_us", baseline.p99)
    for spool in [true, false] {
        let name = spool ? "spooled" : "unspooled"
        report("\(name)_events_per_s", try await SpoolBench.eventsPerSecond(spool: spool))
        let latency = try await SpoolBench.oneAtATime(spool: spool)
        report("\(name)_latency_median_us", latency.median)
        report("\(name)_latency_p99_us", latency.p99)
    }
    report("event_json_us", EventJSONBench.tagrouter())
    report("baseline_event_json_us", EventJSONBench.foundation())
} catch {
    fputs("router-bench: \(error)\n", stderr)
    exit(1)
}

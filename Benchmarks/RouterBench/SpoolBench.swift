import Foundation
import TagRouter

/// The cost of the spool's write-ahead: one route, one action, with `spool: true`
/// and with `spool: false`, in the same run. Throughput: events offered all at
/// once (a burst: the writer groups what waits into one batch per `fsync`).
/// Latency: one event at a time (every event pays its own `fsync`s). The spool
/// goes to `SPOOL_BENCH_DIR`, by default under `.build` — a real disk (a tmpfs
/// `/tmp` would make `fsync` free and the figure meaningless).
enum SpoolBench {
    static let directory = ProcessInfo.processInfo.environment["SPOOL_BENCH_DIR"]
        ?? FileManager.default.currentDirectoryPath + "/.build/spool-bench-\(getpid())"

    static func config(action: String, spool: Bool) -> String {
        "state_dir: \(directory)\nroutes:\n  - name: spool\n    actions: [{ \(action): { queue: 1000000, spool: \(spool) } }]\n"
    }

    /// Events per second through one `log` action writing to /dev/null.
    static func eventsPerSecond(spool: Bool) async throws -> Double {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        return try await throughput(through: makeConfig(yaml: config(action: "log", spool: spool)))
    }

    /// Send → action starts, one event at a time.
    static func oneAtATime(spool: Bool) async throws -> (median: Double, p99: Double) {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        return try await latency(through: makeConfig(yaml: config(action: "stamp", spool: spool)))
    }
}

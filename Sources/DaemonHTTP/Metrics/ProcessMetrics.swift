@preconcurrency import Glibc
import FoundationEssentials

/// The standard `process_*` metrics of this process, read from `/proc` as the
/// Prometheus client libraries do.
struct ProcessMetrics {
    var residentMemoryBytes: Double
    var virtualMemoryBytes: Double
    var cpuSeconds: Double
    /// Seconds since the epoch.
    var startTime: Double
    var openFileDescriptors: Double
    var maxFileDescriptors: Double

    /// Nil when `/proc/self/stat` cannot be read (not Linux, `/proc` not mounted).
    static func current() -> ProcessMetrics? {
        guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
              let afterName = stat.lastIndex(of: ")") else { return nil }
        // Fields after the command name, counted from field 3 (state) as in proc(5).
        let fields = stat[stat.index(after: afterName)...].split(separator: " ")
        func field(_ number: Int) -> Double { Double(fields[number - 3]) ?? 0 }
        guard fields.count >= 22 else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let pageSize = Double(sysconf(Int32(_SC_PAGESIZE)))
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        let openFiles = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
        return ProcessMetrics(
            residentMemoryBytes: field(24) * pageSize, virtualMemoryBytes: field(23), cpuSeconds: (field(14) + field(15)) / ticks,
            startTime: bootTime + field(22) / ticks, openFileDescriptors: Double(openFiles), maxFileDescriptors: Double(limit.rlim_cur))
    }

    /// The machine's boot time (`btime` in `/proc/stat`), seconds since the epoch.
    private static let bootTime: Double = {
        let stat = (try? String(contentsOfFile: "/proc/stat", encoding: .utf8)) ?? ""
        let line = stat.split(separator: "\n").first { $0.hasPrefix("btime ") }
        return line.flatMap { Double($0.dropFirst(6)) } ?? 0
    }()

    func write(to text: inout PrometheusText) {
        let metrics: [(String, String, String, Double)] = [
            ("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.", residentMemoryBytes),
            ("process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.", virtualMemoryBytes),
            ("process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.", cpuSeconds),
            ("process_start_time_seconds", "gauge", "Start time of the process since unix epoch in seconds.", startTime),
            ("process_open_fds", "gauge", "Number of open file descriptors.", openFileDescriptors),
            ("process_max_fds", "gauge", "Maximum number of open file descriptors.", maxFileDescriptors),
        ]
        for (name, type, help, value) in metrics {
            text.family(name, type, help)
            text.sample(name, value)
        }
    }
}

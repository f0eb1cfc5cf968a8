import Foundation
import Harness
import TestSupport
import Testing

/// The C libraries the daemon opens only when a feature needs them (docs/development/memory.md): a daemon that does
/// not use one does not map it, nor what it links (GnuTLS behind libmicrohttpd, gcrypt and zstd behind
/// libsystemd), and one that does use it works (the metrics and systemd suites test what it does).
@Suite(.timeLimit(.minutes(2)))
struct LazyLibraryEndToEndTests {
    /// The file names of the shared objects `daemon` has mapped.
    func mappedLibraries(_ daemon: RunningTool) throws -> Set<String> {
        // Read to the end: procfs reports a size of 0, and a read sized by it stops after the first page.
        let file = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/\(daemon.pid)/maps"))
        defer { try? file.close() }
        let maps = String(decoding: try file.readToEnd() ?? Data(), as: UTF8.self)
        let paths = maps.split(separator: "\n").compactMap { $0.split(separator: " ", omittingEmptySubsequences: true).last }
        return Set(paths.filter { $0.hasPrefix("/") }.compactMap { $0.split(separator: "/").last.map(String.init) })
    }

    func maps(_ libraries: Set<String>, _ prefix: String) -> Bool { libraries.contains { $0.hasPrefix(prefix) } }

    @Test func withoutAListenerOrSystemdNeitherLibmicrohttpdNorLibsystemdIsMapped() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let daemon = try setup.daemon(config: "readers: []\nroutes: [{ name: all, actions: [log] }]\n")
        try await daemon.waitForStderr(containing: "control socket ready")
        let libraries = try mappedLibraries(daemon)
        #expect(maps(libraries, "libc.so"), "the maps were read: \(libraries)")
        for library in ["libmicrohttpd", "libgnutls", "libsystemd", "libcurl"] {
            #expect(!maps(libraries, library), "\(library) mapped: \(libraries.sorted())")
        }
        daemon.signal(SIGTERM)
        #expect(try await daemon.termination().status == .exited(0))
    }

    @Test func aMetricsListenerLoadsLibmicrohttpd() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let daemon = try setup.daemon(config: "readers: []\nmetrics: { listen: \"127.0.0.1:0\" }\nroutes: [{ name: all, actions: [log] }]\n")
        let address = try await daemon.httpAddress()
        #expect(try await MetricsScrape("http://\(address)/metrics").status == 200)
        let libraries = try mappedLibraries(daemon)
        #expect(maps(libraries, "libmicrohttpd"), "libmicrohttpd not mapped: \(libraries.sorted())")
        #expect(!maps(libraries, "libsystemd"), "libsystemd mapped outside systemd: \(libraries.sorted())")
        daemon.signal(SIGTERM)
        #expect(try await daemon.termination().status == .exited(0))
    }
}

import TagRouter
import Testing

@testable import DaemonHTTP

/// A reload that rejected the file on disk shows in the metrics and the systemd
/// STATUS line (the daemon runs the previous config; a restart would fail).
@Suite struct ConfigRejectedMetricTests {
    @Test func aRejectedReloadIsAMetricAndTheStatusLine() {
        let observer = DaemonObserver()
        #expect(DaemonMetrics.text(observer.status, process: nil).contains("\ntagrouter_config_rejected 0\n"))
        observer.rejected(ConfigErrors(mark: SourceMark(file: "t.yaml", line: 3, column: 5), path: "routes[0]", message: "unknown key 'mach'"))
        let status = observer.status
        #expect(DaemonMetrics.text(status, process: nil).contains("\ntagrouter_config_rejected 1\n"))
        #expect(status.summary().hasSuffix("config on disk rejected at t.yaml:3:5; running the previous one"), "\(status.summary())")
        #expect(status.configRejected?.problem == "t.yaml:3:5: routes[0]: unknown key 'mach'")
    }
}

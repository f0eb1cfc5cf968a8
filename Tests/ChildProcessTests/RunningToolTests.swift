import Harness
import Testing

/// The test harness's long-lived process: what tests read after it ended.
@Suite struct RunningToolTests {
    /// Every line a process wrote is there once `termination()` returned: the
    /// daemon's refusal to start was read as "" when the recording task lagged.
    @Test func theLastLinesAreRecordedWhenTerminationReturns() async throws {
        for round in 0..<200 {
            let tool = try RunningTool("/bin/sh", ["-c", "echo out-\(round); echo err-\(round) >&2; exit 65"])
            #expect(try await tool.termination().status == .exited(65))
            #expect(tool.stdout.map(\.text) == ["out-\(round)"])
            #expect(tool.stderr.map(\.text) == ["err-\(round)"])
        }
    }
}

import TagCore
import Testing

@testable import ReaderLibNFC
@testable import TagReader

@Suite struct AutoPollRoundsTests {
    /// One InAutoPoll call blocks for rounds × 4 types × 150 ms: never longer than
    /// half the watchdog, never more than 5 rounds (3 s), never less than one.
    @Test(arguments: [(10_000, 5), (60_000, 5), (3_000, 2), (1_000, 1), (100, 1)])
    func autoPollRoundsFitTheWatchdog(watchdogMs: Int, rounds: Int) {
        let config = ReaderConfig.testing(name: "r", watchdog: .milliseconds(watchdogMs))
        #expect(Int(config.autoPollRounds) == rounds)
    }
}

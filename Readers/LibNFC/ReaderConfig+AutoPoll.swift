import TagCore
import TagReader

extension ReaderConfig {
    /// How many InAutoPoll rounds (150 ms × 4 target types each: ISO-DEP, type A,
    /// FeliCa, Jewel) one blocking call covers: up to 5 (3 s), and at most half the
    /// watchdog so a healthy wait never trips it.
    var autoPollRounds: UInt8 {
        let rounds = (watchdog / .milliseconds(1200)).rounded(.down)
        return UInt8(min(5, max(1, rounds)))
    }
}

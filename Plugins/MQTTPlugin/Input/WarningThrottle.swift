/// Lets one warning line per reason through per interval and counts the ones it
/// held back, so 100,000 bad messages make one line a minute, not 100,000.
/// The reasons are a closed set, so its memory does not grow with the traffic.
struct WarningThrottle<Reason: Hashable> {
    let interval: Duration
    private var last: [Reason: (at: ContinuousClock.Instant, held: Int)] = [:]

    init(interval: Duration = .seconds(60)) {
        self.interval = interval
    }

    /// Nil when a line for `reason` went out less than `interval` ago (this one is
    /// held back and counted); else how many were held back since that line.
    mutating func admit(_ reason: Reason, at now: ContinuousClock.Instant = .now) -> Int? {
        if let previous = last[reason], now - previous.at < interval {
            last[reason] = (previous.at, previous.held + 1)
            return nil
        }
        let held = last[reason]?.held ?? 0
        last[reason] = (now, 0)
        return held
    }
}

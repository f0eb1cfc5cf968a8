// What the in-process benchmarks share: one way to time a piece of work.

/// Calls per second of `body`: the best of three rounds of about 0.3 s each, so a
/// busy machine disturbs the figure less.
public func measure(_ body: () -> Int) -> Double {
    let clock = ContinuousClock()
    var sink = 0
    for _ in 0..<1000 { sink &+= body() }  // warm-up
    var best = 0.0
    for _ in 0..<3 {
        var calls = 0
        let start = clock.now
        var elapsed = Duration.zero
        while elapsed < .milliseconds(300) {
            for _ in 0..<500 { sink &+= body() }
            calls += 500
            elapsed = clock.now - start
        }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        best = max(best, Double(calls) / seconds)
    }
    if sink == 42 { print("") }  // keeps the work observable
    return best
}

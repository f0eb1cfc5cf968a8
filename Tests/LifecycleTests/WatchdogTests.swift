import Testing

@testable import Lifecycle

@Suite struct WatchdogTests {
    /// What fired, in order.
    private static func firings() -> (AsyncStream<String>, @Sendable (String) -> @Sendable () -> Void) {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        return (stream, { name in { continuation.yield(name) } })
    }

    /// The exec plugin sets a 30 s deadline per event and clears it at the answer: a
    /// sleep per event would hold thousands of cancelled timers (issue 8's memory rise).
    @Test func oneSleepServesAThousandDeadlines() {
        let watchdog = Watchdog()
        defer { watchdog.cancel() }
        for _ in 0..<1000 {
            watchdog.set(.now + .seconds(30)) {}
            watchdog.clear()
        }
        #expect(watchdog.sleepsStarted == 1)
    }

    @Test func firesOnceWhenDueAndNotAClearedOrReplacedDeadline() async {
        let (fired, firing) = Self.firings()
        let watchdog = Watchdog()
        let started = ContinuousClock.now
        watchdog.set(started + .milliseconds(20), firing("cleared"))
        watchdog.clear()
        watchdog.set(started + .milliseconds(50), firing("replaced"))
        watchdog.set(started + .milliseconds(300), firing("due"))
        var names = fired.makeAsyncIterator()
        #expect(await names.next() == "due")
        #expect(ContinuousClock.now - started >= .milliseconds(300), "fired before its deadline")
        // One sleep for the first deadline and one more for the later one — or none more when the first sleeper
        // woke after 300 ms (a loaded machine): never one per `set`.
        #expect((1...2).contains(watchdog.sleepsStarted), "\(watchdog.sleepsStarted) sleeps for 3 deadlines")
        watchdog.set(.now + .milliseconds(10), firing("again"))
        #expect(await names.next() == "again", "it fires again after it has fired")
    }

    /// The replaced deadline is an hour away: a watchdog that waited for it would run into the time limit.
    @Test(.timeLimit(.minutes(1))) func aDeadlineMovedEarlierFiresOnTime() async {
        let (fired, firing) = Self.firings()
        let watchdog = Watchdog()
        let started = ContinuousClock.now
        watchdog.set(started + .seconds(3600), firing("late"))
        watchdog.set(started + .milliseconds(20), firing("early"))
        var names = fired.makeAsyncIterator()
        #expect(await names.next() == "early")
    }

    @Test func cancelledItFiresNothing() async {
        let (fired, firing) = Self.firings()
        let watchdog = Watchdog()
        watchdog.set(.now + .milliseconds(20), firing("cancelled"))
        watchdog.cancel()
        let other = Watchdog()
        other.set(.now + .milliseconds(100), firing("other"))
        var names = fired.makeAsyncIterator()
        #expect(await names.next() == "other")
    }
}

import Lifecycle
import Testing

@Suite struct BackoffTests {
    /// initial·2^(attempt−1), capped at the maximum; a long run of failures stays at the cap.
    @Test(arguments: [
        (1, 250), (2, 500), (3, 1000), (4, 2000), (5, 4000), (6, 5000), (7, 5000), (1000, 5000), (Int.max, 5000),
    ])
    func ceilingDoublesUpToTheMaximum(attempt: Int, milliseconds: Int) {
        let backoff = Backoff(initial: .milliseconds(250), maximum: .seconds(5))
        #expect(backoff.ceiling(forAttempt: attempt) == .milliseconds(milliseconds))
        #expect(backoff.delay(forAttempt: attempt) == .milliseconds(milliseconds), "no jitter: the delay is the ceiling")
    }

    /// Odd settings still give waits between zero and the maximum, never a trap.
    @Test(arguments: [
        (Duration.zero, Duration.seconds(1), 0, Duration.zero),
        (.seconds(2), .seconds(1), 3, .seconds(2)),  // a maximum below initial is raised to it
        (.milliseconds(-5), .seconds(1), 2, .zero),
        (.seconds(86_400 * 365), .seconds(86_400 * 3650), 200, .seconds(86_400 * 3650)),
    ])
    func oddSettingsStayInBounds(initial: Duration, maximum: Duration, attempt: Int, expected: Duration) {
        #expect(Backoff(initial: initial, maximum: maximum).ceiling(forAttempt: attempt) == expected)
    }

    @Test func nextCountsFailuresAndResetStartsAgain() {
        var backoff = Backoff(initial: .milliseconds(250), maximum: .seconds(1))
        #expect([backoff.next(), backoff.next(), backoff.next(), backoff.next()] == [.milliseconds(250), .milliseconds(500), .seconds(1), .seconds(1)])
        #expect(backoff.failures == 4)
        backoff.reset()
        #expect(backoff.failures == 0)
        #expect(backoff.next() == .milliseconds(250))
    }

    /// With jitter j every wait lies in [(1−j)·ceiling, ceiling], and the waits do differ.
    @Test(arguments: [0.5, 0.1, 1.0])
    func jitterStaysWithinItsRange(jitter: Double) {
        let backoff = Backoff(initial: .milliseconds(100), maximum: .milliseconds(350), jitter: jitter)
        for attempt in 1...5 {
            let ceiling = backoff.ceiling(forAttempt: attempt)
            let waits = (0..<200).map { _ in backoff.delay(forAttempt: attempt) }
            #expect(waits.allSatisfy { $0 >= ceiling * (1 - jitter) && $0 <= ceiling }, "attempt \(attempt): \(waits.min()!)…\(waits.max()!)")
            #expect(Set(waits).count > 1, "attempt \(attempt): jitter \(jitter) gave one wait 200 times")
        }
    }

    @Test func jitterOutsideZeroToOneIsClamped() {
        #expect(Backoff(initial: .seconds(1), maximum: .seconds(2), jitter: -1).jitter == 0)
        #expect(Backoff(initial: .seconds(1), maximum: .seconds(2), jitter: 7).jitter == 1)
    }
}

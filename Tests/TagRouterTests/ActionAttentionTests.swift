import Foundation
import OrderedJSON
import Synchronization
import SystemKit
import Testing

@testable import TagRouter

/// The lines one action writes: trouble once per reason per window, then how much
/// was not shown; the recovery once the outage's backlog is delivered; successes at debug.
@Suite struct ActionAttentionTests {
    /// An action that is never performed here: only its identity is used.
    struct Unperformed: Action {
        func perform(_ delivery: Delivery) async throws(ActionError) {}
    }

    struct Line: Equatable {
        let level: Log.Level
        let message: String
    }

    /// What the attention wrote, in order.
    final class Lines: Sendable {
        private let lines = Mutex<[Log.Entry]>([])

        /// A logger at `level` whose entries are kept here.
        func logger(at level: Log.Level = .debug) -> Logger { Logger(level: level, sink: { entry in self.lines.withLock { $0.append(entry) } }) }

        /// Lines at `level` and above, as a user at that level sees them.
        func shown(atLeast level: Log.Level = .info) -> [Line] {
            lines.withLock { $0.filter { $0.level >= level }.map { Line(level: $0.level, message: $0.message) } }
        }

        var last: JSONObject? { lines.withLock { $0.last?.fields } }
    }

    static let action = ConfiguredAction(
        plugin: "webhook", route: "door", index: 0, action: Unperformed(), policy: DeliveryPolicy(queueCapacity: 100, attempts: 3, backoff: .seconds(1), maxBackoff: .seconds(60), spool: true, retryConfigured: false),
        mark: SourceMark(file: "t.yaml", line: 1, column: 1))

    func attention() -> (ActionAttention, Lines) {
        let lines = Lines()
        return (ActionAttention(Self.action, window: .seconds(60), logger: lines.logger()), lines)
    }

    @Test func aFloodOfTheSameFailureIsOneLineThenACount() {
        let (attention, lines) = attention()
        let start = Date(timeIntervalSince1970: 1_000_000)
        for second in 0..<5 {
            attention.note(.failed, tagEvent(), reason: "HTTP 500", at: start + Double(second))
        }
        attention.note(.failed, tagEvent(), reason: "HTTP 404", at: start + 6)
        #expect(lines.shown() == [
            Line(level: .error, message: "door.0.webhook: delivery failed; event not delivered: HTTP 500"),
            Line(level: .error, message: "door.0.webhook: delivery failed; event not delivered: HTTP 404"),
        ])
        #expect(lines.shown(atLeast: .debug).count == 6, "the repeats are still there at debug level")
        // A minute after the first: the same line again, saying how many it stands for.
        attention.note(.failed, tagEvent(), reason: "HTTP 500", at: start + 61)
        #expect(lines.shown().last == Line(level: .error, message: "door.0.webhook: delivery failed; event not delivered: HTTP 500 (… 4 more like this not shown)"))
        #expect(lines.last?["repeated"] == 4)
        #expect(lines.last?["reason"] == "HTTP 500")
        #expect(lines.last?["action"] == "door.0.webhook")
        #expect(lines.last?["route"] == "door")
    }

    @Test func theRecoveryWaitsForTheBacklogAndSaysHowLongAndHowMany() {
        let (attention, lines) = attention()
        let start = Date(timeIntervalSince1970: 1_000_000)
        attention.note(.retried, tagEvent(), reason: "connection refused", at: start)
        attention.note(.spooled, tagEvent(), reason: "connection refused", fromSpool: true, at: start + 1)
        for left in (0..<3).reversed() {
            attention.note(.delivered, tagEvent(), reason: nil, fromSpool: true, spoolLeft: left, at: start + 192)
        }
        #expect(lines.shown() == [
            Line(level: .warning, message: "door.0.webhook: delivery failed; will retry: connection refused"),
            Line(level: .warning, message: "door.0.webhook: event kept in the spool for later: connection refused"),
            Line(level: .info, message: "door.0.webhook: recovered after 3m12s; 3 spooled events delivered"),
        ])
        #expect(lines.last?["count"] == 3)
        // Back to normal: a success is a debug line again.
        attention.note(.delivered, tagEvent(), reason: nil, fromSpool: true, at: start + 200)
        #expect(lines.shown().count == 3)
        #expect(lines.shown(atLeast: .debug).last == Line(level: .debug, message: "door.0.webhook: delivered"))
    }

    @Test func underSteadyTrafficTheRecoveryCountsTheBacklogTheOutageLeft() {
        let (attention, lines) = attention()
        let start = Date(timeIntervalSince1970: 1_000_000)
        attention.note(.spooled, tagEvent(), reason: "HTTP 503", fromSpool: true, at: start)
        // The target answers with 3 events waiting behind the first; new taps keep the spool from emptying.
        for left in [3, 3, 3, 3] {
            attention.note(.delivered, tagEvent(), reason: nil, fromSpool: true, spoolLeft: left, at: start + 30)
        }
        #expect(lines.shown().last == Line(level: .info, message: "door.0.webhook: recovered after 30s; 4 spooled events delivered"))
        attention.note(.delivered, tagEvent(), reason: nil, fromSpool: true, spoolLeft: 3, at: start + 31)
        #expect(lines.shown().count == 2, "then successes are debug lines again")
    }

    @Test func aKnownDownTargetIsDebugUntilItsRecovery() {
        let (attention, lines) = attention()
        let start = Date(timeIntervalSince1970: 1_000_000)
        attention.note(.retried, tagEvent(), reason: "no MQTT broker", quiet: true, at: start)
        attention.note(.spooled, tagEvent(), reason: "no MQTT broker", quiet: true, fromSpool: true, at: start)
        attention.note(.delivered, tagEvent(), reason: nil, fromSpool: true, at: start + 45)
        #expect(lines.shown() == [Line(level: .info, message: "door.0.webhook: recovered after 45s; 1 spooled event delivered")])
    }

    @Test func withoutASpoolTheRecoverySaysHowLongOnly() {
        let (attention, lines) = attention()
        let start = Date(timeIntervalSince1970: 1_000_000)
        attention.note(.failed, tagEvent(), reason: "HTTP 500", at: start)
        attention.note(.delivered, tagEvent(), reason: nil, at: start + 3840)
        #expect(lines.shown().last == Line(level: .info, message: "door.0.webhook: recovered after 1h04m"))
    }

    @Test func anEarlierRunsSpoolIsAnnouncedAndItsDeliveryCounted() {
        let (attention, lines) = attention()
        attention.spooledFromBefore(2)
        attention.note(.delivered, tagEvent(), reason: nil, fromSpool: true, spoolLeft: 1)
        attention.note(.delivered, tagEvent(), reason: nil, fromSpool: true, spoolLeft: 0)
        #expect(lines.shown() == [
            Line(level: .info, message: "door.0.webhook: delivering 2 spooled events from before"),
            Line(level: .info, message: "door.0.webhook: 2 spooled events delivered"),
        ])
    }

    @Test func successesAreDebugLines() {
        let (attention, lines) = attention()
        attention.note(.delivered, tagEvent(), reason: nil, fromSpool: true)
        attention.note(.delivered, tagEvent(), reason: nil)
        #expect(lines.shown().isEmpty)
        #expect(lines.shown(atLeast: .debug).map(\.level) == [.debug, .debug])
    }

    /// Every delivery succeeds on the hot path: below debug its line is not even built.
    @Test func successesBelowTheLogLevelAreNotWritten() {
        let lines = Lines()
        let attention = ActionAttention(Self.action, logger: lines.logger(at: .info))
        attention.note(.delivered, tagEvent(), reason: nil)
        attention.note(.failed, tagEvent(), reason: "HTTP 500")
        #expect(lines.shown(atLeast: .debug).map(\.level) == [.error])
    }

    @Test func durationsReadTheWayAPersonSaysThem() {
        #expect(ActionAttention.elapsed(45.2) == "45s")
        #expect(ActionAttention.elapsed(192) == "3m12s")
        #expect(ActionAttention.elapsed(3840) == "1h04m")
    }
}

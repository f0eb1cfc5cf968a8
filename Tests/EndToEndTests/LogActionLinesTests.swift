import Foundation
import Harness
import TestSupport
import Testing

/// The `log` action writes the lines of deliveries already waiting together, yet never keeps
/// a line back when nothing follows it: a lone event's line appears on its own, and a burst
/// comes out whole and in order.
@Suite(.timeLimit(.minutes(2)))
struct LogActionLinesTests {
    func event(_ index: Int) -> String {
        #"{"event":"tag.arrived","id":"burst-\#(index)","reader":"door","time":"2026-12-07T22:00:00.000Z","tag":{"uid":"04a224b2c35e80","type":"ntag215"},"uri":"https://example.com/\#(index)"}"#
    }

    @Test func aLoneLineIsWrittenAtOnceAndABurstWholeAndInOrder() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let daemon = try await setup.daemonReadingEvents(routes: """
              - name: all
                match: { event: tag.arrived }
                actions: [log]
            """)

        // One event and nothing after it: its line must come without another event to push it out.
        #expect(daemon.send(line: event(0)))
        try await daemon.waitForStdout(containing: #""id":"burst-0""#)

        // A burst in one write: read together, queued together, written together.
        let burst = 1...2_000
        #expect(daemon.send(line: burst.map(event).joined(separator: "\n")))
        let lines = try await daemon.waitForStdout(lines: burst.count + 1, timeout: .seconds(60)).map(\.text)
        #expect(lines.count == burst.count + 1)
        let ids = lines.map { line in line.firstRange(of: #""id":"burst-"#).map { String(line[$0.upperBound...].prefix { $0 != "\"" }) } }
        #expect(ids == (0...burst.count).map { String($0) })
        #expect(lines.allSatisfy { $0.hasPrefix(#"{"route":"all","event":{"#) && $0.hasSuffix("}}") })
    }
}

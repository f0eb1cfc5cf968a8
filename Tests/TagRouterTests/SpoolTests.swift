import Foundation
import TagCore
import Testing

@testable import TagRouter

@Suite struct SpoolTests {
    func directory() -> String { NSTemporaryDirectory() + "tagrouter-spool-unit-" + UUID().uuidString }

    @Test func appendsInOrderAndReadsBack() throws {
        let path = directory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let spool = Spool(directory: path)
        let events = (0..<3).map { tagEvent(uid: "04a224b2c35e8\($0)", uri: "https://a/\($0)") }
        var last: UInt64?
        for event in events { last = try spool.append(event, route: "r", after: last).sequence }
        let entries = spool.entries()
        #expect(entries.map(\.event.id) == events.map(\.id))
        #expect(entries.map(\.event) == events.map { event in
            var copy = event
            copy.time = entries.first { $0.event.id == event.id }!.event.time  // times round to milliseconds
            return copy
        })
        #expect(entries.map(\.route) == ["r", "r", "r"])
        spool.remove(entries[0])
        #expect(spool.entries().map(\.sequence) == [2, 3])
    }

    /// A crash mid-write leaves a temporary file: it was never accepted, and is cleaned up.
    @Test func unfinishedWritesAreIgnored() throws {
        let path = directory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let spool = Spool(directory: path)
        let kept = try spool.append(tagEvent(), route: "r", after: nil)
        try "{\"route\":\"r\",\"ev".write(toFile: path + "/.00000000000000000002.json.tmp", atomically: false, encoding: .utf8)
        #expect(spool.entries().map(\.sequence) == [kept.sequence])
        #expect(!FileManager.default.fileExists(atPath: path + "/.00000000000000000002.json.tmp"))
    }

    /// A damaged entry is moved aside (kept for a human), not retried forever nor deleted.
    @Test func damagedEntriesAreMovedAside() throws {
        let path = directory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let spool = Spool(directory: path)
        _ = try spool.append(tagEvent(), route: "r", after: nil)
        try "not json".write(toFile: path + "/00000000000000000002.json", atomically: true, encoding: .utf8)
        #expect(spool.entries().map(\.sequence) == [1])
        #expect(FileManager.default.fileExists(atPath: path + "/00000000000000000002.json.bad"))
    }

    @Test func unwritableDirectoryIsAnError() {
        let spool = Spool(directory: "/proc/tagrouter-cannot-exist/spool")
        #expect(throws: SpoolError.self) { try spool.append(tagEvent(), route: "r", after: nil) }
    }

    @Test func backoffDoublesWithJitterAndHonoursRetryAfter() {
        let policy = DeliveryPolicy(backoff: .milliseconds(100), maxBackoff: .milliseconds(350))
        for _ in 0..<50 {
            let first = policy.delay(afterAttempt: 1), second = policy.delay(afterAttempt: 2), capped = policy.delay(afterAttempt: 6)
            #expect(first >= .milliseconds(50) && first <= .milliseconds(100))
            #expect(second >= .milliseconds(100) && second <= .milliseconds(200))
            #expect(capped >= .milliseconds(175) && capped <= .milliseconds(350))
        }
        #expect(policy.delay(afterAttempt: 1, requested: .milliseconds(300)) == .milliseconds(300))
        #expect(policy.delay(afterAttempt: 1, requested: .seconds(30)) == .milliseconds(350))
    }
}

import DaemonTesting
import Synchronization
import TagCore
import Testing

/// Each daemon has a feedback board of its own: two daemons in one process (tests, a host running
/// two configs) whose readers share a name show each other nothing.
@Suite struct DaemonFeedbackTests {
    /// Two daemons with a PC/SC reader `door` (its LEDs get the outcomes): one routes its tap to a
    /// `feedback` action, the other's tap matches nothing. Each board hears only its own daemon.
    @Test func twoDaemonsWithSameNamedReadersDoNotSeeEachOthersFeedback() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let config = """
            readers: [{name: door, device: "pcsc:ACS ACR122U*"}]
            routes: [{name: open, match: {uid: "0a"}, actions: [{feedback: failure}]}]
            """
        let first = try TestDaemon(config: config, stateDirectory: scratch.path + "/first")
        let second = try TestDaemon(config: config, stateDirectory: scratch.path + "/second")
        let firstSeen = Mutex<[ReaderFeedback.Moment]>([])
        let secondSeen = Mutex<[ReaderFeedback.Moment]>([])
        let firstID = first.daemon.feedback.register(reader: "door") { moment in firstSeen.withLock { $0.append(moment) } }
        let secondID = second.daemon.feedback.register(reader: "door") { moment in secondSeen.withLock { $0.append(moment) } }
        defer {
            first.daemon.feedback.unregister(reader: "door", id: firstID)
            second.daemon.feedback.unregister(reader: "door", id: secondID)
        }

        try await first.send(arrival(uid: "0a"))
        try await second.send(arrival(uid: "0b"))
        first.closeInput()
        second.closeInput()
        // Both ended: every post either made is done.
        try await first.finished()
        try await second.finished()
        // The first: its `feedback` action's pattern, then the tap's outcome (every action delivered).
        #expect(firstSeen.withLock { $0 }.sorted { $0.rawValue < $1.rawValue } == [.failure, .success])
        #expect(secondSeen.withLock { $0 } == [.noMatch])
    }
}

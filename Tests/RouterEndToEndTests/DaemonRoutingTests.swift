import DaemonControl
import DaemonTesting
import Foundation
import OrderedJSON
import Testing

/// The daemon in process (`TestDaemon`): routing, the end of the input, reloads, backpressure — what
/// `tagrouter run` does, without a process per test. Signals, exit codes and the real binary's
/// stdout and stderr stay in `RunCommandTests`.
@Suite struct DaemonRoutingTests {
    @Test func routesEventsAndStopsAtTheEndOfInput() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let daemon = try TestDaemon(config: RunCommandTests.config, stateDirectory: scratch.path + "/state")
        try await daemon.send(arrival(uid: "04a224b2", uri: "spotify:track:1"))
        try await daemon.send(arrival(uid: "0411", uri: "spotify:album:2", reader: "desk"))
        try await daemon.send(arrival(uid: "04-a2-24-b2"))
        let unmatched = arrival(uid: "0499")
        try await daemon.send(unmatched)
        daemon.closeInput()
        try await daemon.finished()
        let lines = daemon.output
        // Each action keeps event order; actions run side by side.
        #expect(lines.filter { $0.hasPrefix("music") } == ["music spotify:track:1 on door", "music spotify:album:2 on desk"])
        #expect(lines.filter { $0.hasPrefix("badge") } == ["badge 04A224B2", "badge 04A224B2"])
        let others = try lines.filter { $0.hasPrefix("{") }.map { try JSONValue.parse($0) }
        #expect(others.map { $0["route"] } == ["other", "other"])
        #expect(others.map { $0["event"]?["reader"] } == ["desk", "door"])
        #expect(others.last?["event"]?["id"] == unmatched["id"])
        #expect(others.first?["event"]?["uri"] == "spotify:album:2")
        #expect(lines.count == 6)
        #expect(daemon.daemon.counters["music.0.log"]?.delivered == 2)
    }

    /// With `--events-from` the config's readers are not run: `status` lists none, rather than one `starting`
    /// for ever (which made the daemon read as degraded, `tagrouter status` exit 2).
    @Test func readersThatAreNotRunAreNotInTheStatus() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let file = try scratch.write("tagrouter.yaml", "readers: [{ name: hall, device: auto }]\nroutes: [{name: a, actions: [log]}]\nstate_dir: \(scratch.path)/state\n")
        let events = try scratch.write("events.jsonl", arrival(uid: "01", reader: "hall").serialized() + "\n")
        let daemon = try TestDaemon(configFile: file, eventsFrom: events, readers: true)
        try await daemon.output(count: 1)
        let status = daemon.daemon.observer.status
        #expect(status.readers.isEmpty)
        #expect(status.problems.isEmpty, "\(status.problems)")
        try await daemon.finished()
    }

    @Test func aReloadRejectsABadConfigAndTheOldOneKeepsRouting() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let file = try scratch.write("tagrouter.yaml", "routes: [{name: a, actions: [{log: \"A {{tag.uid}}\"}]}]\nstate_dir: \(scratch.path)/state\n")
        let daemon = try TestDaemon(configFile: file)
        try await daemon.send(arrival(uid: "01"))
        #expect(try await daemon.output(count: 1) == ["A 01"])

        _ = try scratch.write("tagrouter.yaml", "routes: [{name: b, actions: [{lgo: {}}]}]\n")
        let rejected = try #require(Self.problems(await daemon.reload()))
        #expect(rejected.contains { $0.contains("tagrouter.yaml:1:30: routes[0].actions[0]: unknown action 'lgo' (did you mean 'log'?)") }, "\(rejected)")
        #expect(daemon.daemon.observer.status.configRejected != nil, "status says the file on disk is broken")
        try await daemon.send(arrival(uid: "02"))
        #expect(try await daemon.output(count: 2) == ["A 01", "A 02"])

        _ = try scratch.write("tagrouter.yaml", "routes: [{name: b, actions: [{log: \"B {{tag.uid}}\"}]}]\nstate_dir: \(scratch.path)/state\n")
        #expect(Self.problems(await daemon.reload()) == nil)
        try await daemon.send(arrival(uid: "03"))
        #expect(try await daemon.output(count: 3) == ["A 01", "A 02", "B 03"])
        try await daemon.stop()
    }

    @Test func anEventsFileIsSlowedDownInsteadOfLosingEvents() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        // Small buffer and queue, many routes: the file is read far faster than `log` writes.
        var yaml = "state_dir: \(scratch.path)/state\nevent_buffer: 10\nroutes:\n"
        for index in 0..<49 { yaml += "  - {name: r\(index), match: {reader: other-\(index)}, actions: [log]}\n" }
        yaml += "  - {name: all, actions: [{log: {template: \"{{tag.uid}}\", queue: 10, spool: false}}]}\n"
        let file = try scratch.write("tagrouter.yaml", yaml)
        let count = 20_000
        let uids = (0..<count).map { String(format: "%08x", $0) }
        let events = try scratch.write("events.jsonl", uids.map { arrival(uid: $0).serialized() + "\n" }.joined())
        let daemon = try TestDaemon(configFile: file, eventsFrom: events)
        try await daemon.finished(timeout: .seconds(120))
        #expect(daemon.output.count == count)
        let inFileOrder = daemon.output == uids
        #expect(inFileOrder, "every event delivered, in file order")
        let counters = try #require(daemon.daemon.counters["all.0.log"])
        #expect(counters.delivered == count)
        #expect(daemon.daemon.counters.values.allSatisfy { $0.dropped == 0 }, "no action dropped an event")
        // Nothing dropped from the buffer either (the daemon logs "event dropped" for each such drop).
        #expect(daemon.daemon.buffer.dropped == 0)
    }

    /// Under a dry run the `log` action describes in the log what it would print instead of printing it,
    /// and the description counts as its delivery.
    @Test func aDryRunDescribesInsteadOfDoing() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let daemon = try TestDaemon(config: "routes: [{name: r, actions: [{log: \"did {{tag.uid}}\"}]}]\n", stateDirectory: scratch.path + "/state", dryRun: true)
        try await daemon.send(arrival(uid: "07"))
        try await daemon.send(arrival(uid: "08"))
        daemon.closeInput()
        try await daemon.finished()
        #expect(daemon.output.isEmpty)
        #expect(daemon.log.filter { $0.message.hasPrefix("dry run: log would print did ") }.map(\.message) == ["dry run: log would print did 07", "dry run: log would print did 08"])
        #expect(daemon.daemon.counters["r.0.log"]?.delivered == 2)
    }

    /// Lines are read as bytes: blank and white-space lines are passed over, a line
    /// that is not an event is logged with its number and skipped, non-ASCII text
    /// survives, and a last line without a newline still counts.
    @Test func anEventsFileSkipsBlankAndBadLines() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let file = try scratch.write("tagrouter.yaml", "state_dir: \(scratch.path)/state\nroutes:\n  - {name: all, actions: [{log: {template: \"{{uri}}\"}}]}\n")
        let lines = [
            arrival(uid: "04a1", uri: "https://example.com/café").serialized(), "", " \t\r", "{not an event", "\u{0B}",
            arrival(uid: "04a2", uri: "https://example.com/b").serialized(),
        ]
        let events = try scratch.write("events.jsonl", lines.joined(separator: "\n"))
        let daemon = try TestDaemon(configFile: file, eventsFrom: events)
        try await daemon.finished()
        #expect(daemon.output == ["https://example.com/café", "https://example.com/b"])
        let skipped = daemon.log.filter { $0.message.contains("event line skipped") }
        #expect(skipped.map { $0.fields["line"] } == [.int(4)])
    }

    /// The problems of a rejected reload; nil when the reload took.
    static func problems(_ outcome: ReloadOutcome) -> [String]? {
        guard case .rejected(let problems) = outcome else { return nil }
        return problems
    }
}

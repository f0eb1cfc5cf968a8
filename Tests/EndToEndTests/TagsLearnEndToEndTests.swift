import Foundation
import Harness
import TestSupport
import Testing

/// `tagrouter tags learn|list|rename|forget` as a user runs them against the running
/// daemon and the simulator: the tags file's text before and after (comments and
/// order kept), and the daemon naming the tag after the reload.
@Suite(.timeLimit(.minutes(3)))
struct TagsLearnEndToEndTests {
    static let spare = #"  - { name: spare-key, uid: "04000000000009" }"#

    func config(_ setup: Setup, tags: String) -> String {
        """
        # The front door.
        state_dir: \(setup.directory)/state
        readers:
          - { name: front-door, device: "pn532_uart:\(setup.link)", cooldown: 0s, exit_delay: 200ms }
        \(tags)
        routes:
          - name: all
            match: { event: tag.arrived }
            actions:
              - log: "{{tag.name}}"

        """
    }

    func tags(_ setup: Setup, _ arguments: [String], input: String = "") async throws -> ToolRun {
        try await ToolRun(
            BuiltProducts.tagrouter.path, ["tags"] + arguments + ["--control", setup.directory + "/control.sock"],
            directory: setup.directory, stdin: Array(input.utf8))
    }

    func text(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    /// Stops the daemon (it must exit 0), then what followed it, then the simulator.
    func stop(_ daemon: RunningTool, _ followers: [RunningTool] = [], simulator: RunningTool) async throws {
        daemon.signal(SIGTERM)
        #expect(try await daemon.termination().status == .exited(0))
        for follower in followers { _ = try await follower.termination() }
        simulator.signal(SIGTERM)
        _ = try await simulator.termination()
    }

    /// The daemon on `config` and `tagrouter events` following it; the key placed and its
    /// arrival reported, unnamed (a tag read for a request while it lies there was reported
    /// when it arrived, so its removal and next arrival are reported as usual).
    func daemonWithTheKeyPlaced(_ setup: Setup, config: String) async throws -> (daemon: RunningTool, events: RunningTool) {
        let daemon = try setup.daemon(config: config)
        try await daemon.waitForStderr(containing: "control socket ready")
        let events = try RunningTool(BuiltProducts.tagrouter.path, ["events", "--control", setup.directory + "/control.sock"], directory: setup.directory)
        try await events.waitForStderr(containing: "following the events of tagrouter")
        try await setup.request(ControlEndToEndTests.key)
        try await events.waitForStdout(containing: "tag.arrived 04a224b2c35e80 ntag215 uri=")
        return (daemon, events)
    }

    /// Lifts the key and places it again, as a user does after naming it, and waits for the named arrival.
    func placeAgain(_ setup: Setup, _ events: RunningTool, named name: String) async throws {
        try await setup.request(#"{"op":"remove"}"#)
        try await events.waitForStdout(containing: "tag.removed 04a224b2c35e80")
        try await setup.request(ControlEndToEndTests.key)
        try await events.waitForStdout(containing: "tag.arrived 04a224b2c35e80 ntag215 '\(name)' uri=")
    }

    @Test func learnListRenameAndForgetInTheConfigsOwnTagsBlock() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let simulator = try await setup.simulator()
        let before = config(setup, tags: "tags:\n  # the spare key lives in the drawer\n\(Self.spare)\n  # keep this comment")
        let (daemon, events) = try await daemonWithTheKeyPlaced(setup, config: before)

        let learn = try await tags(setup, ["learn"], input: "door-key\nfamily, guests\n")
        #expect(learn.status == 0, "\(learn.stdout)\(learn.stderr)")
        #expect(learn.stdout.contains("Tag: 04a224b2c35e80 (ntag215) https://www.home-assistant.io/tag/front-door-key\nNot known yet.\nName: "), "\(learn.stdout)")
        #expect(learn.stdout.contains("The daemon reloaded its config."), "\(learn.stdout)")
        let learned = before.replacingOccurrences(
            of: Self.spare + "\n", with: Self.spare + "\n" + #"  - { name: "door-key", uid: "04a224b2c35e80", groups: ["family", "guests"] }"# + "\n")
        #expect(try text(setup.directory + "/tagrouter.yaml") == learned)

        // The reloaded daemon names the tag: lift it and place it again.
        try await placeAgain(setup, events, named: "door-key")
        try await daemon.waitForStderr(containing: "ntag215 04a224b2c35e80 'door-key' tag id front-door-key https://www.home-assistant.io/tag/front-door-key → all")

        // Learning the same tag again says it is known and offers a rename.
        let again = try await tags(setup, ["learn"], input: "\n")
        #expect(again.stdout.contains("Known as 'door-key'.") && again.stdout.contains("Nothing written."), "\(again.stdout)")

        let list = try await tags(setup, ["list"])
        #expect(list.stdout == "spare-key  04000000000009\ndoor-key  04a224b2c35e80  groups: family, guests\n", "\(list.stdout)")

        #expect(try await tags(setup, ["rename", "door-key", "front-key"]).status == 0)
        #expect(try await tags(setup, ["forget", "spare-key"]).status == 0)
        let after = learned.replacingOccurrences(of: Self.spare + "\n", with: "").replacingOccurrences(of: #"name: "door-key""#, with: #"name: "front-key""#)
        #expect(try text(setup.directory + "/tagrouter.yaml") == after)
        #expect(after.contains("# the spare key lives in the drawer") && after.contains("# keep this comment"))

        let unknown = try await tags(setup, ["forget", "nobody"])
        #expect(unknown.status == 64 && unknown.stderr.contains("no tag named 'nobody'"), "\(unknown.stderr)")

        try await stop(daemon, [events], simulator: simulator)
    }

    /// What a tag carries reaches the terminal escaped, a name with quotes and a colon
    /// stays one scalar of one line in the file, and a name with a control character
    /// (a line break, an escape sequence) is refused (issue 31).
    @Test func aHostileTagAndAnAwkwardNameStayInTheirPlace() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let simulator = try await setup.simulator()
        let daemon = try setup.daemon(config: config(setup, tags: "tags: []"))
        try await daemon.waitForStderr(containing: "control socket ready")
        try await setup.request(#"{"op":"place","type":"ntag213","uid":"04000000000001","records":[{"text":"\u001b]0;owned\u0007hi","lang":"en"}]}"#)

        for name in ["a\nb", "a\u{1B}]0;owned\u{07}", "a\u{202E}b"] {
            let refused = try await tags(setup, ["learn", "--name", name, "--groups", "x"])
            #expect(refused.status == 64 && refused.stderr.contains("the name holds a control or formatting character"), "\(refused.stdout)\(refused.stderr)")
        }
        let learn = try await tags(setup, ["learn", "--name", "a \"b\" c: d", "--groups", "x"])
        #expect(learn.status == 0, "\(learn.stdout)\(learn.stderr)")
        #expect(!learn.stdout.contains("\u{1B}") && learn.stdout.contains(#"\u001b]0;owned\u0007hi"#), "\(learn.stdout)")
        #expect(learn.stdout.contains(#"added 'a "b" c: d' (04000000000001)"#), "\(learn.stdout)")
        let file = try text(setup.directory + "/tagrouter.yaml")
        #expect(file.contains("tags:\n  - { name: \"a \\\"b\\\" c: d\", uid: \"04000000000001\", groups: [\"x\"] }\nroutes:"), "\(file)")
        let list = try await tags(setup, ["list"])
        #expect(list.stdout == "a \"b\" c: d  04000000000001  groups: x\n", "\(list.stdout)")

        try await stop(daemon, simulator: simulator)
    }

    /// `tags: {file: tags.yaml}`: the entry goes to that file, after its last entry and before its trailing comment.
    @Test func learnWritesTheTagsFileTheConfigNames() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let simulator = try await setup.simulator()
        let tagsFile = setup.directory + "/tags.yaml"
        let before = "# Our tags.\n- name: spare-key   # in the drawer\n  uid: \"04000000000009\"\n  groups: [family]\n\n# add new tags above\n"
        try before.write(toFile: tagsFile, atomically: true, encoding: .utf8)
        let (daemon, events) = try await daemonWithTheKeyPlaced(setup, config: config(setup, tags: "tags: { file: tags.yaml }"))

        let learn = try await tags(setup, ["learn", "--name", "door key", "--groups", ""])
        #expect(learn.status == 0, "\(learn.stdout)\(learn.stderr)")
        #expect(try text(tagsFile) == "# Our tags.\n- name: spare-key   # in the drawer\n  uid: \"04000000000009\"\n  groups: [family]\n"
            + "- { name: \"door key\", uid: \"04a224b2c35e80\" }\n\n# add new tags above\n")
        try await placeAgain(setup, events, named: "door key")

        #expect(try await tags(setup, ["rename", "spare-key", "drawer-key"]).status == 0)
        #expect(try text(tagsFile).hasPrefix("# Our tags.\n- name: \"drawer-key\"   # in the drawer\n"))

        try await stop(daemon, [events], simulator: simulator)
    }
}

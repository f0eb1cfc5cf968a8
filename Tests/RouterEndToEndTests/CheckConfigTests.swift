import Foundation
import TagCore
import Testing

/// `tagrouter check-config` as a real process.
@Suite struct CheckConfigTests {
    @Test func summarisesAGoodConfig() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let file = try scratch.write("c.yaml", """
            readers:
              - { name: front-door, device: "pn532_uart:/dev/ttyUSB0" }
            state_dir: /var/lib/tagrouter
            routes:
              - name: music
                match: { uri: "spotify:*" }
                actions: [log, { log: "{{uri}}" }]
                continue: true
              - actions: [log]
            """)
        let daemon = try Daemon(["check-config", file], directory: scratch.path)
        defer { daemon.stop() }
        #expect(try daemon.exitStatus() == 0)
        #expect(daemon.stdout == [
            "\(file): OK", "readers: 1", "  front-door: pn532_uart:/dev/ttyUSB0", "routes: 2",
            "  music: 2 actions (log, log), continue", "  route-2: 1 action (log)", "actions: 3", "tags: 0", "state_dir: /var/lib/tagrouter",
        ])
    }

    @Test func warnsAboutNamedTagsNoRouteSelectsAndExplainsWithTheName() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let file = try scratch.write("c.yaml", """
            tags:
              - {name: abbey-road, uid: "04:A2:24:B2", groups: [music]}
              - {name: spare, uid: "0411"}
            routes:
              - {name: albums, match: {group: music}, actions: [{log: "play {{tag.name}}"}]}
            """)
        let check = try Daemon(["check-config", file], directory: scratch.path)
        defer { check.stop() }
        #expect(try check.exitStatus() == 0)
        #expect(check.stderr == ["\(file):3:5: warning: no route matches tag 'spare' by `tag:` or `group:` (fine if the name is only for events and Home Assistant)"])
        #expect(check.stdout.contains("tags: 2"))

        let explain = try Daemon(["check-config", file, "--explain", "--uid", "04-a2-24-b2"], directory: scratch.path)
        defer { explain.stop() }
        #expect(try explain.exitStatus() == 0)
        #expect(explain.stdout.contains(#"  ✓ group: "music" matches music"#))
        #expect(explain.stdout.contains("  → log: print play abbey-road"))
    }

    @Test func listsEveryProblemAndExits65() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let file = try scratch.write("c.yaml", """
            routes:
              - name: x
                mtch: {}
                actions: [{log: {templte: x}}]
            tags:
              - {name: a, uid: 04a224b2}
              - {name: b, uid: 04-A2-24-B2}
            """)
        let daemon = try Daemon(["check-config", file], directory: scratch.path)
        defer { daemon.stop() }
        #expect(try daemon.exitStatus() == 65)
        #expect(daemon.stderr == [
            "\(file):3:5: routes[0]: unknown key 'mtch' (did you mean 'match'?)",
            "\(file):4:22: routes[0].actions[0].log: unknown key 'templte' (did you mean 'template'?)",
            "\(file):7:20: tags[1].uid: UID 04-A2-24-B2 is listed under 'a' (line 6) and 'b'",
            "error: \(file): the config has 3 problems",
        ])
    }

    @Test func explainShowsWhyEachRouteDidOrDidNotFire() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let file = try scratch.write("c.yaml", """
            routes:
              - name: door
                match: { uid: "04:A2:24:B2", reader: front }
                actions: [log]
              - name: music
                match: { uri: "spotify:*" }
                actions: [{ log: "play {{uri}}" }]
              - name: rest
                actions: [log]
            """)
        let daemon = try Daemon(["check-config", file, "--explain", "--uri", "spotify:track:9", "--uid", "04a224b2", "--reader", "desk"], directory: scratch.path)
        defer { daemon.stop() }
        #expect(try daemon.exitStatus() == 0)
        #expect(Array(daemon.stdout.dropFirst()) == [
            "route door: no match",
            "  ✓ event: tag.arrived",
            "  ✓ uid: \"04a224b2\" matches 04a224b2",
            "  ✗ reader: \"desk\" does not match front",
            "route music: MATCH",
            "  ✓ event: tag.arrived",
            "  ✓ uri: \"spotify:track:9\" matches spotify:*",
            "  → log: print play spotify:track:9",
            "route rest: not tried (route 'music' matched first and does not say continue: true)",
            "  ✓ event: tag.arrived",
        ])
        let event = try JSONValue.parse(String(try #require(daemon.stdout.first).dropFirst("event: ".count)))
        #expect(event["reader"] == "desk")
    }

    @Test func explainTakesAWholeEvent() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let file = try scratch.write("c.yaml", "routes: [{name: gone, match: {event: tag.removed}, actions: [log]}]\n")
        let event = #"{"event":"tag.removed","reader":"r","tag":{"uid":"0411","type":"ntag215"},"dwellMs":1200}"#
        let daemon = try Daemon(["check-config", file, "--explain", "--event", event], directory: scratch.path)
        defer { daemon.stop() }
        #expect(try daemon.exitStatus() == 0)
        #expect(daemon.stdout.contains("route gone: MATCH"))
    }

    @Test func badArgumentsExit64() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let daemon = try Daemon(["check-config", "--uri", "x"], directory: scratch.path, environment: ["HOME": scratch.path])
        defer { daemon.stop() }
        #expect(try daemon.exitStatus() == 64)
    }

    @Test func theEmbeddedDefaultIsValid() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let daemon = try Daemon(["check-config"], directory: scratch.path, environment: ["HOME": scratch.path])
        defer { daemon.stop() }
        #expect(try daemon.exitStatus() == 0)
        #expect(daemon.stdout.first == "embedded default: OK")
    }
}

/// The README's config reference is what the specs generate.
@Suite struct ReferenceTableTests {
    @Test func readmeReferenceMatchesTheSpecs() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let daemon = try Daemon(["check-config", "--reference"], directory: scratch.path)
        defer { daemon.stop() }
        #expect(try daemon.exitStatus() == 0)
        let generated = daemon.stdout.joined(separator: "\n") + "\n"
        let readme = try String(contentsOfFile: ExampleConfigTests.repositoryRoot + "/README.md", encoding: .utf8)
        let start = try #require(readme.range(of: "<!-- reference:start -->\n"))
        let end = try #require(readme.range(of: "<!-- reference:end -->"))
        #expect(String(readme[start.upperBound..<end.lowerBound]) == generated,
                "README's reference is stale: replace the text between the reference markers with `tagrouter check-config --reference`")
        #expect(generated.contains("`routes[].match.uid`"))
        // Every built-in action has its own README section with an example.
        let actions = generated.split(separator: "\n").filter { $0.hasPrefix("#### `- ") && $0.hasSuffix("` action") }.map { $0.dropFirst(8).prefix { $0 != "`" } }
        #expect(actions.contains("log"))
        for action in actions {
            #expect(readme.contains("\n### `\(action)`"), "README has no section for the `\(action)` action")
        }
    }
}

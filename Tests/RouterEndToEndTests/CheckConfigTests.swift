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
            "  music: 2 actions (log, log), continue", "  route-2: 1 action (log)", "actions: 3", "state_dir: /var/lib/tagrouter",
        ])
    }

    @Test func listsEveryProblemAndExits65() throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let file = try scratch.write("c.yaml", "routes:\n  - name: x\n    mtch: {}\n    actions: [{log: {templte: x}}]\n")
        let daemon = try Daemon(["check-config", file], directory: scratch.path)
        defer { daemon.stop() }
        #expect(try daemon.exitStatus() == 65)
        #expect(daemon.stderr == [
            "\(file):3:5: routes[0]: unknown key 'mtch' (did you mean 'match'?)",
            "\(file):4:22: routes[0].actions[0].log: unknown key 'templte' (did you mean 'template'?)",
            "2 problems",
            "error: \(file): the config has 2 problems",
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
        let event = #"{"event":"tag.removed","reader":"r","tag":{"uid":"0411","type":"ntag215"},"dwell_ms":1200}"#
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

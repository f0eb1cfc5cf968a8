import Foundation
import OrderedJSON
import Testing

/// `tagrouter check-config` as a real process.
@Suite struct CheckConfigTests {
    @Test func summarisesAGoodConfig() async throws {
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
        let daemon = try TagrouterProcess(["check-config", file], directory: scratch.path)
        defer { daemon.stop() }
        #expect(try await daemon.exitStatus() == 0)
        #expect(daemon.stdout == [
            "\(file): OK", "readers: 1", "  front-door: pn532_uart:/dev/ttyUSB0", "routes: 2",
            "  music: 2 actions (log, log), continue", "  route-2: 1 action (log)", "actions: 3", "tags: 0", "state_dir: /var/lib/tagrouter",
        ])
    }

    @Test func warnsAboutNamedTagsNoRouteSelectsAndExplainsWithTheName() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let file = try scratch.write("c.yaml", """
            tags:
              - {name: abbey-road, uid: "04:A2:24:B2", groups: [music]}
              - {name: spare, uid: "0411"}
            routes:
              - {name: albums, match: {group: music}, actions: [{log: "play {{tag.name}}"}]}
            """)
        let check = try TagrouterProcess(["check-config", file], directory: scratch.path)
        defer { check.stop() }
        #expect(try await check.exitStatus() == 0)
        #expect(check.stderr == ["\(file):3:5: warning: tags: no route matches tag 'spare' by `tag:` or `group:` (fine if the name is only for events and Home Assistant)"])
        #expect(check.stdout.contains("tags: 2"))

        let explain = try TagrouterProcess(["check-config", file, "--explain", "--uid", "04-a2-24-b2"], directory: scratch.path)
        defer { explain.stop() }
        #expect(try await explain.exitStatus() == 0)
        #expect(explain.stdout.contains(#"  ✓ group: "music" matches music"#))
        #expect(explain.stdout.contains("  → log: print play abbey-road"))
    }

    @Test func listsEveryProblemAndExits65() async throws {
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
        let daemon = try TagrouterProcess(["check-config", file], directory: scratch.path)
        defer { daemon.stop() }
        #expect(try await daemon.exitStatus() == 65)
        #expect(daemon.stderr == [
            "\(file):3:5: routes[0]: unknown key 'mtch' (did you mean 'match'?)",
            "\(file):4:22: routes[0].actions[0].log: unknown key 'templte' (did you mean 'template'?)",
            "\(file):7:20: tags[1].uid: UID 04-A2-24-B2 is listed under 'a' (line 6) and 'b'",
            "error: \(file): the config has 3 problems",
        ])
    }

    @Test func webhookURLsWhoseLiteralPartIsWrongAreErrorsAtTheirLine() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let file = try scratch.write("c.yaml", """
            routes:
              - actions:
                  - webhook: "ftp://x"
                  - webhook: "not a url"
                  - webhook: "https:///hook"
                  - webhook: "http://example.com/a b"
                  - webhook: "{{uri}}"
                  - webhook: "https://{{reader}}.local/hook"
            """)
        let daemon = try TagrouterProcess(["check-config", file], directory: scratch.path)
        defer { daemon.stop() }
        #expect(try await daemon.exitStatus() == 65)
        #expect(daemon.stderr == [
            "\(file):3:18: routes[0].actions[0].webhook.url: the scheme 'ftp' is not supported; webhooks go to http:// or https:// URLs",
            "\(file):4:18: routes[0].actions[1].webhook.url: expected an http:// or https:// URL, got 'not a url'",
            "\(file):5:18: routes[0].actions[2].webhook.url: the URL has no host: expected https://HOST/…",
            "\(file):6:18: routes[0].actions[3].webhook.url: a URL cannot contain spaces or line breaks (write %20 for a space)",
            "error: \(file): the config has 4 problems",
        ])
    }

    @Test func aTabInTheIndentationIsNamed() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let file = try scratch.write("c.yaml", "routes:\n  - name: x\n\t  actions: [log]\n")
        let daemon = try TagrouterProcess(["check-config", file], directory: scratch.path)
        defer { daemon.stop() }
        #expect(try await daemon.exitStatus() == 65)
        #expect(daemon.stderr.first == "\(file):3:1: tabs cannot indent YAML; use spaces")
    }

    @Test func anEmptyFileWarnsThatThereAreNoRoutes() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let file = try scratch.write("c.yaml", "")
        let daemon = try TagrouterProcess(["check-config", file], directory: scratch.path)
        defer { daemon.stop() }
        #expect(try await daemon.exitStatus() == 0)
        #expect(daemon.stderr == ["\(file):1:1: warning: no routes: events are read but nothing is done with them; add a `routes:` list (config/examples has some)"])
        #expect(daemon.stdout.first == "\(file): OK")
    }

    @Test func discoveryWithNoRoutePublishingWhatItAnnouncesWarnsAndNamesTheRoute() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let unpublished = try scratch.write("c.yaml", """
            readers: [{name: door, device: auto}]
            mqtt:
              home_assistant: {discovery: true}
            routes:
              - actions: [{mqtt: {topic: "elsewhere/{{reader}}"}}]
            """)
        let warned = try TagrouterProcess(["check-config", unpublished], directory: scratch.path)
        defer { warned.stop() }
        #expect(try await warned.exitStatus() == 0)
        #expect(warned.stderr == [
            "\(unpublished):3:31: warning: mqtt.home_assistant.discovery: Home Assistant listens for scans on tagrouter/door/tag.arrived, "
                + "but no route publishes there; add the route `- {name: home-assistant, match: {event: [tag.arrived, tag.removed]}, actions: [mqtt]}`",
        ])

        let published = try scratch.write("d.yaml", """
            readers: [{name: door, device: auto}]
            mqtt:
              home_assistant: {discovery: true}
            routes:
              - {name: home-assistant, match: {event: [tag.arrived, tag.removed]}, actions: [mqtt]}
            """)
        let quiet = try TagrouterProcess(["check-config", published], directory: scratch.path)
        defer { quiet.stop() }
        #expect(try await quiet.exitStatus() == 0)
        #expect(quiet.stderr.isEmpty)
    }

    @Test func explainShowsWhyEachRouteDidOrDidNotFire() async throws {
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
        let daemon = try TagrouterProcess(["check-config", file, "--explain", "--uri", "spotify:track:9", "--uid", "04a224b2", "--reader", "desk"], directory: scratch.path)
        defer { daemon.stop() }
        #expect(try await daemon.exitStatus() == 0)
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

    @Test func explainTakesAWholeEvent() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let file = try scratch.write("c.yaml", "routes: [{name: gone, match: {event: tag.removed}, actions: [log]}]\n")
        let event = #"{"event":"tag.removed","reader":"r","tag":{"uid":"0411","type":"ntag215"},"dwell_ms":1200}"#
        let daemon = try TagrouterProcess(["check-config", file, "--explain", "--event", event], directory: scratch.path)
        defer { daemon.stop() }
        #expect(try await daemon.exitStatus() == 0)
        #expect(daemon.stdout.contains("route gone: MATCH"))
    }

    @Test func badArgumentsExit64() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let daemon = try TagrouterProcess(["check-config", "--uri", "x"], directory: scratch.path, environment: ["HOME": scratch.path])
        defer { daemon.stop() }
        #expect(try await daemon.exitStatus() == 64)
    }

    @Test func theEmbeddedDefaultIsValid() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let daemon = try TagrouterProcess(["check-config"], directory: scratch.path, environment: ["HOME": scratch.path])
        defer { daemon.stop() }
        #expect(try await daemon.exitStatus() == 0)
        #expect(daemon.stdout.first == "embedded default: OK")
    }
}

/// The config reference (docs/guide/reference.md) and the README's index of it are what the specs generate.
@Suite struct ReferenceTableTests {
    static let root = ExampleConfigTests.repositoryRoot

    /// The text of `file` between `<!-- name:start -->` and `<!-- name:end -->`.
    static func block(_ name: String, of file: String) throws -> String {
        let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
        let start = try #require(text.range(of: "<!-- \(name):start -->\n"), "\(file) has no \(name) block")
        let end = try #require(text.range(of: "<!-- \(name):end -->"), "\(file) has no end of its \(name) block")
        return String(text[start.upperBound..<end.lowerBound])
    }

    /// What `tagrouter check-config <flag>` prints.
    static func generated(_ flag: String) async throws -> String {
        let scratch = Scratch()
        defer { scratch.remove() }
        let daemon = try TagrouterProcess(["check-config", flag], directory: scratch.path)
        defer { daemon.stop() }
        #expect(try await daemon.exitStatus() == 0)
        return daemon.stdout.joined(separator: "\n") + "\n"
    }

    @Test func theGuidesReferenceMatchesTheSpecs() async throws {
        let generated = try await Self.generated("--reference")
        #expect(try Self.block("reference", of: "docs/guide/reference.md") == generated,
                "docs/guide/reference.md is stale: replace the text between the reference markers with `tagrouter check-config --reference`")
        #expect(generated.contains("`routes[].match.uid`"))
        // Every built-in action has its own section in the guide's Actions page.
        let guide = try String(contentsOfFile: Self.root + "/docs/guide/actions.md", encoding: .utf8)
        let actions = generated.split(separator: "\n").filter { $0.hasPrefix("#### `- ") && $0.hasSuffix("` action") }.map { $0.dropFirst(8).prefix { $0 != "`" } }
        #expect(actions.contains("log"))
        for action in actions {
            #expect(guide.contains("\n## `\(action)`"), "docs/guide/actions.md has no section for the `\(action)` action")
        }
    }

    @Test func theReadmesIndexMatchesTheSpecs() async throws {
        let generated = try await Self.generated("--reference-index")
        #expect(try Self.block("reference-index", of: "README.md") == generated,
                "README's reference index is stale: replace the text between the reference-index markers with `tagrouter check-config --reference-index`")
        // One link per top-level section of the reference, none for the nested ones.
        let reference = try await Self.generated("--reference")
        let headings = reference.split(separator: "\n").filter { $0.hasPrefix("#### ") }
        let links = generated.split(separator: "\n")
        #expect(links.count >= 15 && links.count < headings.count)
        #expect(links.allSatisfy { $0.hasPrefix("- [") && $0.contains("](docs/guide/reference.md#") })
        #expect(links.contains { $0.hasPrefix("- [`readers[]`](docs/guide/reference.md#readers)") })
        #expect(!links.contains { $0.contains("readers[].feedback") })
    }
}

import Foundation
import OrderedJSON
import TagCore
import Testing

@testable import TagRouter

/// Named tags: which name an event gets, how routes and templates use it, and
/// what `check-config` says about the `tags:` section.
@Suite struct TagRegistryTests {
    static let tags = """
        tags:
          - {name: abbey-road, uid: "04:A2:24:B2:C3:5E:80", groups: [music]}
          - {name: annas-key, uid: [04-11-22-33-44-55-66, "0x0499"], groups: [kids, family]}
          - {name: front-door, tag_id: front-door}
          - {name: spotify-card, match: {uri: "spotify:*"}, groups: [music]}
        """

    func registry(_ yaml: String = tags) throws -> TagRegistry {
        try load(yaml + "\nroutes: []").tags
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let what: String
        let event: TagEvent
        let name: String?
        let groups: [String]
        var testDescription: String { what }
    }

    static let cases: [Case] = [
        Case(what: "UID in another spelling", event: tagEvent(uid: "04a224b2c35e80"), name: "abbey-road", groups: ["music"]),
        Case(what: "second UID of an entry", event: tagEvent(uid: "0499"), name: "annas-key", groups: ["kids", "family"]),
        Case(what: "Home Assistant tag id", event: tagEvent(uid: "0123", uri: "https://www.home-assistant.io/tag/front-door"), name: "front-door", groups: []),
        Case(what: "content", event: tagEvent(uid: "0123", uri: "spotify:album:1"), name: "spotify-card", groups: ["music"]),
        Case(what: "UID wins over content", event: tagEvent(uid: "04a224b2c35e80", uri: "spotify:album:1"), name: "abbey-road", groups: ["music"]),
        Case(what: "unknown", event: tagEvent(uid: "0123", uri: "https://example.com"), name: nil, groups: []),
    ]

    @Test(arguments: cases)
    func resolves(_ test: Case) throws {
        let named = try registry().resolve(test.event)
        #expect(named.tag?.name == test.name)
        #expect(named.tag?.groups == test.groups)
        #expect(named.json.value(atPath: "tag.name") == test.name.map(JSONValue.string))
    }

    @Test func everyEventOfAPresenceNamedByContentCarriesTheName() throws {
        let registry = try registry()
        let arrival = tagEvent(uid: "0123", uri: "spotify:album:1")
        let events = [arrival, arrival.following(.tagHeld), arrival.following(.tagRemoved, dwellMs: 2000)].map(registry.resolve)
        #expect(events.map(\.tag?.name) == ["spotify-card", "spotify-card", "spotify-card"])
        // The presence ended: a removal out of nowhere is not named by that content.
        #expect(registry.resolve(arrival.following(.tagRemoved, dwellMs: 0)).tag?.name == nil)
        // The same UID on another reader is another presence.
        #expect(registry.resolve(tagEvent(uid: "0123", reader: "desk").following(.tagTapped)).tag?.name == nil)
    }

    @Test func routesMatchByNameGroupAndKnown() async throws {
        let probe = TestProbe()
        let router = try makeRouter(Self.tags + """

            routes:
              - {name: album, match: {tag: abbey-*}, actions: [{recorder: {probe: \(probe.id)}}]}
              - {name: kids, match: {group: kids}, actions: [{recorder: {probe: \(probe.id)}}]}
              - {name: rejected, match: {known: false}, actions: [{recorder: {probe: \(probe.id)}}]}
              - {name: known, match: {known: true}, actions: [{recorder: {probe: \(probe.id)}}]}
            """)
        #expect(await router.dispatch(tagEvent(uid: "04a224b2c35e80"), waitForRoom: false) == ["album"])
        #expect(await router.dispatch(tagEvent(uid: "04-11-22-33-44-55-66"), waitForRoom: false) == ["kids"])
        #expect(await router.dispatch(tagEvent(uid: "0123"), waitForRoom: false) == ["rejected"])
        #expect(await router.dispatch(tagEvent(uid: "0123", uri: "https://www.home-assistant.io/tag/front-door"), waitForRoom: false) == ["known"])
        let explained = router.explain(tagEvent(uid: "0123"))
        #expect(explained[0].conditions.last?.description == "✗ tag: the tag has no name (it is not in `tags:`), expected abbey-*")
    }

    @Test func templatesShowTheName() throws {
        let event = try registry().resolve(tagEvent(uid: "04-11-22-33-44-55-66"))
        let template = try Template("{{tag.name}} in {{tag.groups | json}}", environment: [:])
        #expect(template.render(Template.variables(for: event, route: "r")) == #"annas-key in ["kids","family"]"#)
    }

    @Test func aTagsFileIsReadRelativeToTheConfig() throws {
        let directory = NSTemporaryDirectory() + "tagrouter-tags-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "- {name: fob, uid: 04a224b2}\n".write(toFile: directory + "/tags.yaml", atomically: true, encoding: .utf8)
        let config = try load("tags: {file: tags.yaml}\nroutes: []", directory: directory)
        #expect(config.tags.resolve(tagEvent(uid: "04A224B2")).tag?.name == "fob")

        try "- {name: fob, uidd: 04a224b2}\n".write(toFile: directory + "/tags.yaml", atomically: true, encoding: .utf8)
        #expect(throws: ConfigErrors.self) { try load("tags: {file: tags.yaml}", directory: directory) }
        do {
            _ = try load("tags: {file: tags.yaml}", directory: directory)
        } catch {
            #expect(error.errors.map(\.description) == ["tags.yaml:1:15: tags[0]: unknown key 'uidd' (did you mean 'uid'?)"])
        }
    }

    @Test(arguments: [
        (
            "tags:\n  - {name: a, uid: 04a224b2}\n  - {name: b, uid: \"04:A2:24:B2\"}",
            "t.yaml:3:20: tags[1].uid: UID 04-A2-24-B2 is listed under 'a' (line 2) and 'b'"
        ),
        ("tags:\n  - {name: a, uid: 04a2}\n  - {name: a, uid: 0411}", "t.yaml:3:12: tags[1].name: tag name 'a' is already used at line 2"),
        ("tags:\n  - {name: a, uid: 04zz}", "t.yaml:2:20: tags[0].uid: '04zz' is not a tag UID: 'z' is not a hex digit"),
        ("tags:\n  - {name: a, uid: 04a224b2c35e8}", "t.yaml:2:20: tags[0].uid: '04a224b2c35e8' is not a tag UID: it has an odd number of hex digits (13); a UID is whole bytes, two digits each"),
        ("tags:\n  - {name: a}", "t.yaml:2:5: tags[0]: tag 'a' needs a `uid`, a `tag_id` or a `match` to be recognised by"),
        ("tags:\n  - {name: a, match: {event: tag.held}}", "t.yaml:2:23: tags[0].match: unknown key 'event'; expected one of: uri, uri_regex, text, text_regex, mime, record, json, records"),
        ("tags: {file: /proc/self}", "t.yaml:1:14: tags.file: cannot read the tags file /proc/self: Is a directory"),
    ])
    func problemsAreReportedWhereTheyAre(yaml: String, problem: String) {
        #expect(problems(yaml) == [problem])
    }

    /// A stock install names its tags in a file the first `tags learn` makes: until then, and while it is empty,
    /// there are no named tags and nothing is wrong.
    @Test func aTagsFileNotMadeYetOrEmptyHoldsNoTags() throws {
        let directory = NSTemporaryDirectory() + "tagrouter-tags-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try load("tags: {file: tags.yaml}\nroutes: []", directory: directory).tags.entries.isEmpty)
        for empty in ["", "# named tags\n"] {
            try empty.write(toFile: directory + "/tags.yaml", atomically: true, encoding: .utf8)
            #expect(try load("tags: {file: tags.yaml}\nroutes: []", directory: directory).tags.entries.isEmpty, "\(empty)")
        }
    }

    /// A route asking for a tag name no entry has never matches: said, with the name meant when one is close.
    @Test func aRouteNamingNoKnownTagIsWarnedAboutWithTheNameMeant() throws {
        let config = try load(Self.tags + "\nroutes:\n  - {name: record, match: {tag: abey-road}, actions: [log]}\n  - {name: any, match: {tag: \"*-key\"}, actions: [log]}")
        #expect(config.warnings.map(\.description).contains(
            "t.yaml:7:5: warning: routes.record.match.tag: no named tag is called 'abey-road' (did you mean 'abbey-road'?), so the route never matches by it"),
            "\(config.warnings.map(\.description))")
        #expect(!config.warnings.contains { $0.message.contains("*-key") }, "a pattern is not a misspelt name")
    }

    @Test func namesNoRouteSelectsAreWarnedAbout() throws {
        let config = try load(Self.tags + "\nroutes:\n  - {match: {tag: abbey-road}, actions: [log]}\n  - {match: {group: kids}, actions: [log]}")
        #expect(config.warnings.map(\.description) == [
            "t.yaml:4:5: warning: tags: no route matches tag 'front-door' by `tag:` or `group:` (fine if the name is only for events and Home Assistant)",
            "t.yaml:5:5: warning: tags: no route matches tag 'spotify-card' by `tag:` or `group:` (fine if the name is only for events and Home Assistant)",
        ])
    }
}

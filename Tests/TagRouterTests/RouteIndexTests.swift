import TagCore
import Testing

@testable import TagRouter

/// The route index narrows which routes an event is tried against; the routes
/// an event goes to must be exactly those of trying every route in file order
/// (what `--explain` does, route by route, without the index).
@Suite struct RouteIndexTests {
    static let routes = """
        routes:
          - name: door-uid
            match: { uid: "04:A2:24:B2:C3:5E:80" }
            actions: [log]
            continue: true
          - name: ha-tag
            match: { tag_id: "front-door-tag" }
            actions: [log]
          - name: tag-id-as-uid
            match: { tag_id: "04-11-22-33" }
            actions: [log]
            continue: true
          - name: spotify
            match: { uri: ["spotify:*", "https://open.spotify.com/*"], reader: desk }
            actions: [log]
          - name: exact-uri
            match: { uri: "https://example.com/exact" }
            actions: [log]
          - name: wildcard-first
            match: { uri: "*.pdf" }
            actions: [log]
          - name: question-mark
            match: { text: "hello ?orld" }
            actions: [log]
          - name: regex
            match: { uri_regex: "^mailto:" }
            actions: [log]
          - name: any-record
            match: { uri: "tel:*", records: any }
            actions: [log]
          - name: kitchen-removed
            match: { reader: "kitchen*", event: [tag.removed, tag.held] }
            actions: [log]
            continue: true
          - name: kind-only
            match: { event: tag.removed }
            actions: [log]
          - name: reader-event
            match: { event: [reader.connected, reader.error] }
            actions: [log]
          - name: named
            match: { tag: "abbey*" }
            actions: [log]
          - name: catch-all
            actions: [log]
        """

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let event: TagEvent
        let expected: [String]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "the UID route goes on to the catch-all", event: tagEvent(uid: "04a224b2c35e80"), expected: ["door-uid", "catch-all"]),
        Case(name: "a UID in another spelling", event: tagEvent(uid: "04:a2:24:b2:c3:5e:80", uri: "spotify:x", reader: "desk"), expected: ["door-uid", "spotify"]),
        Case(name: "a Home Assistant tag id", event: tagEvent(uid: "0499", uri: "https://www.home-assistant.io/tag/front-door-tag"), expected: ["ha-tag"]),
        Case(name: "a tag id wanted as a UID, by the tag's UID", event: tagEvent(uid: "04112233"), expected: ["tag-id-as-uid", "catch-all"]),
        Case(name: "a tag id wanted as a UID, by the HA tag id", event: tagEvent(uid: "0499", uri: "https://www.home-assistant.io/tag/04112233"), expected: ["tag-id-as-uid", "catch-all"]),
        Case(name: "the second of two URI globs", event: tagEvent(uid: "0499", uri: "https://open.spotify.com/track/1", reader: "desk"), expected: ["spotify"]),
        Case(name: "a URI glob but not its reader", event: tagEvent(uid: "0499", uri: "spotify:x", reader: "door"), expected: ["catch-all"]),
        Case(name: "an exact URI", event: tagEvent(uid: "0499", uri: "https://example.com/exact"), expected: ["exact-uri"]),
        Case(name: "longer than the exact URI", event: tagEvent(uid: "0499", uri: "https://example.com/exact/more"), expected: ["catch-all"]),
        Case(name: "a glob starting with a wildcard", event: tagEvent(uid: "0499", uri: "https://example.com/a.pdf"), expected: ["wildcard-first"]),
        Case(name: "a glob with ?", event: tagEvent(uid: "0499", text: "hello world"), expected: ["question-mark"]),
        Case(name: "a regular expression", event: tagEvent(uid: "0499", uri: "mailto:a@b"), expected: ["regex"]),
        Case(name: "records: any sees the second URI", event: tagEvent(uid: "0499", uri: "https://a.example", records: [
            ["tnf": 1, "type": "U", "uri": "https://a.example"], ["tnf": 1, "type": "U", "uri": "tel:+100"],
        ]), expected: ["any-record"]),
        Case(name: "a removal at a kitchen reader", event: TagEvent(kind: .tagRemoved, reader: "kitchen-2", tag: TagInfo(uid: TagUID("0499")!, type: "ntag215")), expected: ["kitchen-removed", "kind-only"]),
        Case(name: "a removal elsewhere", event: TagEvent(kind: .tagRemoved, reader: "door", tag: TagInfo(uid: TagUID("04a224b2c35e80")!, type: "ntag215")), expected: ["kind-only"]),
        Case(name: "a hold at the kitchen", event: TagEvent(kind: .tagHeld, reader: "kitchen", tag: TagInfo(uid: TagUID("0499")!, type: "ntag215")), expected: ["kitchen-removed"]),
        Case(name: "a reader event", event: TagEvent(kind: .readerError, reader: "door", message: "gone"), expected: ["reader-event"]),
        Case(name: "a kind no route wants", event: TagEvent(kind: .readerDisconnected, reader: "door"), expected: []),
        Case(name: "a named tag", event: {
            var event = tagEvent(uid: "0499")
            event.tag?.name = "abbey-road"
            return event
        }(), expected: ["named"]),
        Case(name: "nothing but the catch-all", event: tagEvent(uid: "0499", uri: "https://else.example", reader: "desk"), expected: ["catch-all"]),
        Case(name: "a non-ASCII URI shorter than some prefixes", event: tagEvent(uid: "0499", uri: "é"), expected: ["catch-all"]),
    ]

    @Test(arguments: cases) func routesAsTryingEveryRouteInOrder(_ test: Case) throws {
        let router = try makeRouter(Self.routes)
        let routed = router.matchingRoutes(test.event).map { router.config.routes[$0].name }
        #expect(routed == test.expected)
        #expect(routed == router.explain(test.event).filter(\.matched).map(\.route))
    }

    /// The bench's shape: a hundred URI globs, one of which matches, cost one
    /// lookup per prefix length and one route tried.
    @Test func aHundredURIGlobsLeaveOneCandidate() throws {
        let routes = (0..<100).map { index in
            let uri = index == 99 ? "https://example.com/tap/*" : "https://example.com/route-\(index)/*"
            return "  - name: route-\(index)\n    match: { uri: \"\(uri)\" }\n    actions: [log]"
        }
        let router = try makeRouter("routes:\n" + routes.joined(separator: "\n"))
        let index = RouteIndex(router.config.routes.map(\.matcher))
        #expect(index.candidates(for: tagEvent(uri: "https://example.com/tap/7")) == [99])
        #expect(index.candidates(for: tagEvent(uri: "https://example.com/route-42/x")) == [42])
        #expect(index.candidates(for: tagEvent(uri: "https://example.com/route-4/x")) == [4])
        #expect(index.candidates(for: tagEvent(uri: "https://other.example")) == [])
        #expect(router.matchingRoutes(tagEvent(uri: "https://example.com/tap/7")) == [99])
    }

    /// Routes no lookup can answer are candidates for every event of their kinds, in file order among the rest.
    @Test func unindexedRoutesKeepTheirPlace() throws {
        let router = try makeRouter(Self.routes)
        let index = RouteIndex(router.config.routes.map(\.matcher))
        let names = { (event: TagEvent) in index.candidates(for: event).map { router.config.routes[$0].name } }
        #expect(names(tagEvent(uid: "04a224b2c35e80", uri: "spotify:x")) == ["door-uid", "spotify", "wildcard-first", "question-mark", "regex", "any-record", "catch-all"])
        #expect(names(TagEvent(kind: .readerConnected, reader: "door")) == ["reader-event"])
    }
}

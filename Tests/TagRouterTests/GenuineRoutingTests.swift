import Foundation
import TagCore
import Testing

@testable import TagRouter

/// `tag.genuine`: the router checks the originality signature an event brings,
/// routes match on the verdict, templates show it, `tags:` entries may require it.
@Suite struct GenuineRoutingTests {
    /// A real NTAG 21x's UID and signature (github.com/aramix/nxp-originality-verifier, its test vector).
    static let uid = "04ab87f2ca1190"
    static let signature = "67b1750bcceb1174f9a33bf20e0226551a6366939b31f949848c3c087350fa90"

    static let config = """
        tags:
          - { name: anna, uid: \(uid), require_genuine: true }
        routes:
          - { name: real, match: { genuine: true }, actions: [log] }
          - { name: fake, match: { genuine: false }, actions: [log] }
          - { name: unsure, match: { genuine: unknown }, actions: [log] }
          - { name: unchecked, actions: [log] }
        """

    /// An arrival as another node publishes it: JSON with the tag's signature (and perhaps a claim).
    static func published(kind: String = "tag.arrived", uid: String = uid, signature: String? = signature, claim: String = "") throws -> TagEvent {
        let signed = signature.map { #","signature":"\#($0)""# } ?? ""
        return try TagEvent(jsonText: #"{"event":"\#(kind)","reader":"door","tag":{"uid":"\#(uid)","type":"ntag215"\#(signed)\#(claim)}}"#)
    }

    @Test func routesMatchTheVerdictTheRouterWorksOut() async throws {
        let router = try makeRouter(Self.config)
        #expect(await router.dispatch(try Self.published(), waitForRoom: false) == ["real"])
        // The same signature with another UID: copied onto a clone whose UID differs.
        #expect(await router.dispatch(try Self.published(uid: "04ab87f2ca1191"), waitForRoom: false) == ["fake"])
        var silent = tagEvent(uid: Self.uid)
        silent.tag?.genuine = .unknown  // as a reader sets it when READ_SIG got no answer
        #expect(await router.dispatch(silent, waitForRoom: false) == ["unsure"])
        // A claim without a signature is not believed: nothing was checked.
        let claimed = try Self.published(signature: nil, claim: #","genuine":true"#)
        #expect(await router.dispatch(claimed, waitForRoom: false) == ["unchecked"])
        let explained = router.explain(claimed)
        #expect(explained[0].conditions.contains { $0.key == "genuine" && !$0.passed && $0.detail.contains("no originality check") })
        #expect(router.explain(try Self.published())[0].matched)
    }

    @Test func requireGenuineNamesOnlyTheRealChip() async throws {
        let router = try makeRouter("""
            tags:
              - { name: anna, uid: \(Self.uid), require_genuine: true }
            routes:
              - { name: anna, match: { tag: anna, event: [tag.arrived, tag.removed] }, actions: [log] }
              - { name: stranger, match: { event: [tag.arrived, tag.removed] }, actions: [log] }
            """)
        #expect(await router.dispatch(try Self.published(), waitForRoom: false) == ["anna"])
        // Its removal carries the arrival's tag, signature and all.
        #expect(await router.dispatch(try Self.published(kind: "tag.removed"), waitForRoom: false) == ["anna"])
        #expect(await router.dispatch(tagEvent(uid: Self.uid), waitForRoom: false) == ["stranger"])
        let zeros = String(repeating: "0", count: 64)  // what many clones answer to READ_SIG
        #expect(await router.dispatch(try Self.published(signature: zeros), waitForRoom: false) == ["stranger"])
    }

    @Test func templatesShowTheVerdict() throws {
        let router = try makeRouter(Self.config)
        let explained = router.explain(try Self.published(uid: "04ab87f2ca1191"))
        #expect(explained.first { $0.matched }?.route == "fake")
        var event = tagEvent(uid: Self.uid)
        event.tag?.genuine = .genuine
        let template = try Template("{{tag.uid}} genuine={{tag.genuine}}", environment: [:])
        #expect(template.render(Template.variables(for: event, route: "r")) == "04ab87f2ca1190 genuine=true")
        event.tag?.genuine = .unknown
        #expect(template.render(Template.variables(for: event, route: "r")) == "04ab87f2ca1190 genuine=unknown")
    }

    /// A delivery spooled before a restart is read back with its verdict (worked out again, not read).
    @Test func aSpooledEventKeepsItsVerdict() throws {
        let path = NSTemporaryDirectory() + "tagrouter-spool-genuine-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: path) }
        var event = try Self.published()
        event.tag?.genuine = .genuine  // as routing had it
        _ = try Spool(directory: path).append([Delivery(event: event, route: "real")])
        let back = Spool(directory: path).recoverEntries()
        #expect(back.map { $0.delivery.event.tag?.genuine } == [.genuine])
        #expect(back.first?.delivery.event.jsonText.contains(#""genuine":true"#) == true)
    }
}

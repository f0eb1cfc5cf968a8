import Foundation
import TestSupport
import Testing

/// The live page in a real browser (Debian's headless chromium): asked for the
/// token, then showing each tap placed on the simulator — its type, UID,
/// records, routes, each action's outcome and a route snippet — the
/// per-action counters, and the reader going away.
@Suite(.timeLimit(.minutes(3)))
struct LivePageEndToEndTests {
    static let key = #"{"op":"place","type":"ntag215","uid":"04a224b2c35e80","records":[{"uri":"https://www.home-assistant.io/tag/front-door-key"}]}"#
    static let stranger = #"{"op":"place","type":"ntag213","uid":"04000000000001","records":[{"text":"<b>hello</b>","lang":"en"}]}"#

    /// Places `request` on the simulator and waits for the page to show `css` holding `text`: what it shows, not
    /// how fast (another lane, or `make stress`, may hold the cores); the deadline only ends a page that never does.
    func place(_ request: String, _ setup: Setup, browser: Browser, shows css: String, holding text: String) async throws {
        try await setup.request(request)
        try await browser.wait(for: css, holding: text, timeout: .seconds(30))
    }

    @Test func thePageShowsTapsOutcomesCountersAndAReaderGoingAway() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        try "page-token-0123456789\n".write(toFile: setup.directory + "/page.token", atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: setup.directory + "/page.token")
        let simulator = try await setup.simulator()
        let daemon = try setup.daemon(config: """
            state_dir: \(setup.directory)/state
            readers:
              - { name: front-door, device: "pn532_uart:\(setup.link)", cooldown: 0s, exit_delay: 200ms }
            metrics: { listen: "127.0.0.1:0", token_file: page.token }
            routes:
              - name: key
                match: { event: tag.arrived, uid: "04a224b2c35e80" }
                actions:
                  - log: "key {{tag.uid}}"
            """)
        let address = try await daemon.httpAddress()
        let browser = try await Browser()

        // With a token the page asks for it, says when it is wrong, and opens with the right one.
        try await browser.open("http://\(address)/")
        try await browser.wait(for: "#token-form", holding: "needs the bearer token", visible: true)
        try await browser.type("not-the-token", into: "#token")
        try await browser.click("#token-entry button")
        try await browser.wait(for: "#token-reason", holding: "That token is wrong", visible: true)
        try await browser.type("page-token-0123456789", into: "#token")
        try await browser.click("#token-entry button")
        try await browser.wait(for: #"[data-reader="front-door"][data-state="connected"]"#, holding: "pn532_uart:", visible: true)
        try await browser.wait(for: "#live", holding: "live")

        // A tap that matches: its type, UID, URI record, route, the action's outcome, and the snippet to copy.
        try await place(Self.key, setup, browser: browser, shows: #"li.tap[data-uid="04a224b2c35e80"][data-kind="tag.arrived"]"#, holding: "matched: key")
        let tap = #"li.tap[data-uid="04a224b2c35e80"][data-kind="tag.arrived"]"#
        try await browser.wait(for: tap, holding: "ntag215")
        try await browser.wait(for: tap, holding: "URI https://www.home-assistant.io/tag/front-door-key")
        try await browser.wait(for: tap + #" li[data-action="key.0.log"]"#, holding: "key.0.log delivered after")
        try await browser.wait(for: tap + " .snippet pre", holding: #"match: { uid: "04a224b2c35e80" }"#)
        try await browser.wait(for: tap + " .snippet pre", holding: #"match: { tag_id: "front-door-key" }"#)
        try await browser.wait(for: tap + " .snippet pre", holding: #"match: { uri: "https://www.home-assistant.io/tag/front-door-key" }"#)
        try await browser.wait(for: #"[data-action="key.0.log"] .delivered"#, holding: "1 delivered")
        // How fast the reader is: place → tag.arrived as far as it can tell, and its arrival → the action's outcome.
        try await browser.wait(for: #"[data-reader="front-door"] [data-latency="arrival"]"#, holding: "place \u{2192} tag.arrived p50 ")
        try await browser.wait(for: #"[data-reader="front-door"] [data-latency="key.0.log"]"#, holding: "tag.arrived \u{2192} key.0.log p50 ")
        try await place(#"{"op":"remove"}"#, setup, browser: browser, shows: #"li.tap[data-uid="04a224b2c35e80"] li.stage[data-kind="tag.removed"]"#, holding: "on the reader")

        // A tap that matches nothing says why; what the tag holds is shown as text, never as markup.
        try await place(Self.stranger, setup, browser: browser, shows: #"li.tap[data-uid="04000000000001"]"#, holding: "no route matched")
        try await browser.wait(for: #"li.tap[data-uid="04000000000001"] .records"#, holding: "Text \u{201C}<b>hello</b>\u{201D} (en)")
        try await browser.wait(for: #"li.tap[data-uid="04000000000001"] .verdicts"#, holding: "key: uid")
        try await browser.wait(for: #"[data-reader="front-door"]"#, holding: "2 tags · last 04000000000001 (ntag213)")
        try await browser.click(tap + " summary")
        try await browser.wait(for: tap + " .snippet pre", holding: "uid:", visible: true)
        try await browser.screenshot(to: setup.directory + "/live-page.png")
        if let keep = ProcessInfo.processInfo.environment["TAGROUTER_SCREENSHOT"] {
            try? FileManager.default.removeItem(atPath: keep)
            try FileManager.default.copyItem(atPath: setup.directory + "/live-page.png", toPath: keep)
        }

        // The reader going away shows, in its state and in the feed.
        simulator.signal(SIGTERM)
        _ = try await simulator.termination()
        try await browser.wait(for: #"[data-reader="front-door"][data-state="disconnected"]"#, holding: "disconnected", timeout: .seconds(10))
        try await browser.wait(for: #"li.reader-event[data-kind="reader.disconnected"]"#, holding: "front-door reader.disconnected")
        try await browser.wait(for: "#health", holding: "degraded")

        // The daemon stops promptly with the page's event stream still open.
        daemon.signal(SIGTERM)
        #expect(try await daemon.termination().status == .exited(0))
        try await browser.quit()
    }

    /// Past the listener's 16 live pages a page used to wait for a connection that never came; now it says
    /// why, keeps trying every `Retry-After` (10 s: HTTPLimitsEndToEndTests checks the header), and goes live
    /// once another page leaves. The browser's timers run ten times faster, so the retry comes after 1 s.
    @Test func aPagePastTheCapSaysWhyAndGetsInWhenAnotherLeaves() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let daemon = try setup.daemon(config: """
            readers: []
            metrics: { listen: "127.0.0.1:0" }
            routes: [{ name: all, actions: [log] }]
            """)
        let address = try await daemon.httpAddress()
        let port = Int(address.split(separator: ":").last ?? "") ?? 0
        let pages = try (0..<16).map { _ in try RawHTTPConnection(port: port) }
        for page in pages {
            page.send("GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            try page.read(until: "event: status")
        }
        let browser = try await Browser()
        try await browser.hastenTimers(by: 10)
        try await browser.open("http://\(address)/")
        try await browser.wait(for: "#notice", holding: "16 live pages are open, the most this listener serves at once", visible: true)
        try await browser.wait(for: "#notice", holding: "trying again every 10 s", visible: true)
        try await browser.wait(for: "#live", holding: "busy")
        pages[0].hangUp()
        try await browser.wait(for: "#live", holding: "live", timeout: .seconds(30))
        try await browser.wait(for: "#health", holding: "healthy")
        daemon.signal(SIGTERM)
        #expect(try await daemon.termination().status == .exited(0))
        try await browser.quit()
    }

    /// With `hold:` a tap became three cards, one an orange "no route matched" for the arrival although
    /// the tap matched; and a page opened after the taps said "Nothing yet". Now a presence is one card
    /// with its stages, and the page starts with what the daemon still holds.
    @Test func aPresenceIsOneCardAndThePageStartsWithWhatJustHappened() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let simulator = try await setup.simulator()
        let daemon = try setup.daemon(config: """
            state_dir: \(setup.directory)/state
            readers:
              - { name: front-door, device: "pn532_uart:\(setup.link)", cooldown: 0s, exit_delay: 200ms, hold: 5s }
            metrics: { listen: "127.0.0.1:0" }
            routes:
              - name: tapped
                match: { event: tag.tapped, uid: "04a224b2c35e80" }
                actions:
                  - log: "tapped {{tag.uid}}"
            """)
        let events = try await setup.events(of: daemon)

        // Before any page is open: a tap (lifted before the hold) that only its tag.tapped route matches.
        try await setup.request(Self.key)
        try await events.waitForStdout(containing: "tag.arrived 04a224b2c35e80")
        try await setup.request(#"{"op":"remove"}"#)
        try await events.waitForStdout(containing: "tag.removed 04a224b2c35e80")

        let address = try await daemon.httpAddress()
        let browser = try await Browser()
        try await browser.open("http://\(address)/")
        let card = #"li.tap[data-uid="04a224b2c35e80"]"#
        try await browser.wait(for: card + #" li.stage[data-kind="tag.arrived"]"#, holding: "arrived")
        try await browser.wait(for: card + #" li.stage[data-kind="tag.tapped"]"#, holding: "matched: tapped")
        try await browser.wait(for: card + #" li.stage[data-kind="tag.tapped"] li[data-action="tapped.0.log"]"#, holding: "delivered")
        try await browser.wait(for: card + #" li.stage[data-kind="tag.removed"]"#, holding: "on the reader")
        try await browser.wait(for: card, holding: "URI https://www.home-assistant.io/tag/front-door-key")
        #expect(try await browser.count(card) == 1)
        #expect(try await browser.count(card + " .none") == 0)
        #expect(try await browser.count("#feed-empty") == 0)

        // Live: a tag nothing matches says so once, on its one card, with the arrival's reasons.
        try await setup.request(Self.stranger)
        let stranger = #"li.tap[data-uid="04000000000001"]"#
        try await browser.wait(for: stranger + " .routes", holding: "no route matched")
        try await browser.wait(for: stranger + " .verdicts", holding: "tapped: event")
        try await setup.request(#"{"op":"remove"}"#)
        try await browser.wait(for: stranger + #" li.stage[data-kind="tag.removed"]"#, holding: "on the reader")
        #expect(try await browser.count(stranger) == 1)
        #expect(try await browser.count(stranger + " .none") == 1)

        daemon.signal(SIGTERM)
        simulator.signal(SIGTERM)
        #expect(try await daemon.termination().status == .exited(0))
        try await browser.quit()
    }
}

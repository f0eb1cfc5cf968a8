import Foundation
import Harness
import OrderedJSON
import TestSupport
import Testing

/// "Name this tag" on the live page: in a real browser, a tap on the simulator is
/// named from its card, the tags file changes as `tagrouter tags learn` changes it
/// and the next tap carries the name; over raw HTTP, every request that is not
/// this page's own (no token, another site's Origin, a rebound Host, a form's
/// content type, no request token, an oversized body) is refused and the file
/// stays as it was.
@Suite(.timeLimit(.minutes(3)))
struct PageNamingEndToEndTests {
    static let token = "page-token-0123456789"
    static let spare = #"  - { name: spare-key, uid: "04000000000009" }"#

    /// A config with a tags block holding the spare key, a comment above it, and `metrics`.
    func config(_ setup: Setup, readers: String = "[]", metrics: String) -> String {
        """
        # The front door.
        state_dir: \(setup.directory)/state
        readers: \(readers)
        metrics: \(metrics)
        tags:
          # the spare key lives in the drawer
        \(Self.spare)
        routes:
          - name: all
            match: { event: tag.arrived }
            actions:
              - log: "{{tag.name}}"

        """
    }

    func writeToken(_ setup: Setup) throws {
        try (Self.token + "\n").write(toFile: setup.directory + "/page.token", atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: setup.directory + "/page.token")
    }

    func text(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    /// One request on its own connection, read until the server closes it.
    struct Answer {
        var status: Int
        var head: String
        var body: String
    }

    func exchange(_ port: Int, _ method: String, _ path: String, headers: [String: String], body: String? = nil) throws -> Answer {
        var request = "\(method) \(path) HTTP/1.1\r\nConnection: close\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { request += "\(name): \(value)\r\n" }
        if let body, headers["Transfer-Encoding"] == nil, headers["Content-Length"] == nil { request += "Content-Length: \(body.utf8.count)\r\n" }
        request += "\r\n" + (body ?? "")
        let connection = try RawHTTPConnection(port: port)
        connection.send(request)
        try connection.readUntilClosed(timeout: .seconds(20))
        let parts = connection.text.components(separatedBy: "\r\n\r\n")
        let head = parts.first ?? ""
        let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
        return Answer(status: status, head: head, body: parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    /// The headers the page sends with a naming request to `host`, with the request token it fetched
    /// from `/api/naming` (and the bearer token, when given).
    func pageHeaders(_ port: Int, host: String, authorization: String? = nil) throws -> [String: String] {
        var headers = ["Host": host]
        if let authorization { headers["Authorization"] = authorization }
        let naming = try exchange(port, "GET", "/api/naming", headers: headers)
        #expect(naming.status == 200, "\(naming.head)\n\(naming.body)")
        headers["X-Tagrouter-CSRF"] = try #require(try JSONValue.parse(naming.body)["request_token"]?.stringValue, "\(naming.body)")
        headers["Origin"] = "http://\(host)"
        headers["Content-Type"] = "application/json"
        return headers
    }

    /// Stops the daemon, which must exit 0.
    func stop(_ daemon: RunningTool) async throws {
        daemon.signal(SIGTERM)
        #expect(try await daemon.termination().status == .exited(0))
    }

    /// The daemon on `config(setup, metrics:)` without readers, its listener's port once it listens, and its config file.
    func daemon(_ setup: Setup, metrics: String) async throws -> (RunningTool, Int, String) {
        let daemon = try setup.daemon(config: config(setup, metrics: metrics))
        return (daemon, Int(try await daemon.httpAddress().split(separator: ":").last ?? "") ?? 0, setup.directory + "/tagrouter.yaml")
    }

    /// Lifts the tag off the simulator and waits for the daemon to report its removal.
    func lift(_ setup: Setup, _ events: RunningTool) async throws {
        let seen = events.stdout.count
        try await setup.request(#"{"op":"remove"}"#)
        try await events.waitForStdout(containing: "tag.removed 04a224b2c35e80", after: seen)
    }

    @Test func theBrowserNamesATapAndTheNextTapCarriesTheName() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        try writeToken(setup)
        let simulator = try await setup.simulator()
        let file = setup.directory + "/tagrouter.yaml"
        let daemon = try setup.daemon(config: config(
            setup, readers: "\n  - { name: front-door, device: \"pn532_uart:\(setup.link)\", cooldown: 0s, exit_delay: 200ms }",
            metrics: "{ listen: \"127.0.0.1:0\", token_file: page.token }"))
        let address = try await daemon.httpAddress()
        let events = try await setup.events(of: daemon)
        let before = try text(file)
        let browser = try await Browser()
        try await browser.open("http://\(address)/")
        try await browser.wait(for: "#token-form", holding: "needs the bearer token", visible: true)
        try await browser.type(Self.token, into: "#token")
        try await browser.click("#token-entry button")
        try await browser.wait(for: "#live", holding: "live")

        // An unknown tag's card offers a name; naming it writes the tags block and reloads the daemon.
        try await setup.request(LivePageEndToEndTests.key)
        let card = #"li.tap[data-uid="04a224b2c35e80"]"#
        try await browser.wait(for: card + " .name-button", holding: "name this tag", visible: true)
        #expect(try await browser.count(card + " .name-input", visible: true) == 0, "the form shows before it is asked for")
        try await browser.click(card + " .name-button")
        try await browser.type("door-key", into: card + " .name-input")
        try await browser.type("family, guests", into: card + " .groups-input")
        try await browser.click(card + #" .name-form button[type="submit"]"#)
        try await browser.wait(for: card + " .naming-done", holding: "added 'door-key' (04a224b2c35e80)", visible: true)
        try await browser.wait(for: card + " .naming-done", holding: "the daemon reloaded its config")
        #expect(try await browser.count(card + " .name-input", visible: true) == 0, "the form stays after it was saved")
        try await browser.wait(for: card + " .name-button", holding: "rename")
        let named = before.replacingOccurrences(
            of: Self.spare + "\n", with: Self.spare + "\n" + #"  - { name: "door-key", uid: "04a224b2c35e80", groups: ["family", "guests"] }"# + "\n")
        #expect(try text(file) == named)

        // The next tap carries the name, on the page and in the daemon's log.
        try await lift(setup, events)
        try await setup.request(LivePageEndToEndTests.key)
        try await browser.wait(for: card + " .tag-name", holding: "door-key")
        try await daemon.waitForStderr(containing: "ntag215 04a224b2c35e80 'door-key'")

        // Its card offers a rename; a name another tag has is refused on the card, and the file stays.
        try await browser.wait(for: card + " .name-button", holding: "rename", visible: true)
        try await browser.click(card + " .name-button")
        try await browser.type("spare-key", into: card + " .name-input")
        try await browser.click(card + #" .name-form button[type="submit"]"#)
        try await browser.wait(for: card + " .naming-error", holding: "the name 'spare-key' is already used", visible: true)
        #expect(try text(file) == named)
        try await browser.type("front-key", into: card + " .name-input")
        try await browser.click(card + #" .name-form button[type="submit"]"#)
        try await browser.wait(for: card + " .naming-done", holding: "renamed 'door-key' to 'front-key'", visible: true)
        #expect(try text(file) == named.replacingOccurrences(of: #"name: "door-key""#, with: #"name: "front-key""#))
        #expect(try text(file).contains("# the spare key lives in the drawer"))

        try await lift(setup, events)
        try await setup.request(LivePageEndToEndTests.key)
        try await browser.wait(for: card + " .tag-name", holding: "front-key")

        try await stop(daemon)
        _ = try await events.termination()
        simulator.signal(SIGTERM)
        _ = try await simulator.termination()
        try await browser.quit()
    }

    /// With a token: each request a page of another site (or a process without the token) could send is
    /// refused with its reason, and the tags file is not touched; the page's own request names the tag.
    @Test func requestsFromElsewhereAreRefusedAndTheFileStays() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        try writeToken(setup)
        let (daemon, port, file) = try await daemon(setup, metrics: "{ listen: \"127.0.0.1:0\", token_file: page.token }")
        let before = try text(file)
        let host = "127.0.0.1:\(port)"
        let auth = "Bearer \(Self.token)"

        // The request token: only for this listener's own name, and only with the bearer token.
        #expect(try exchange(port, "GET", "/api/naming", headers: ["Host": host]).status == 401)
        let rebound = try exchange(port, "GET", "/api/naming", headers: ["Host": "evil.example:\(port)", "Authorization": auth])
        #expect(rebound.status == 403 && rebound.body.contains("Host 'evil.example:\(port)' is not this listener"), "\(rebound.body)")
        let page = try pageHeaders(port, host: host, authorization: auth)

        let good = #"{"uid":"04a224b2c35e80","name":"door-key","groups":"family"}"#
        func without(_ name: String) -> [String: String] { page.filter { $0.key != name } }
        func with(_ name: String, _ value: String) -> [String: String] { page.merging([name: value]) { $1 } }
        let refusals: [(what: String, method: String, headers: [String: String], body: String?, status: Int, says: String)] = [
            ("no bearer token", "POST", without("Authorization"), good, 401, "this listener needs a bearer token"),
            ("a wrong bearer token", "POST", with("Authorization", "Bearer not-the-token-at-all"), good, 401, "the bearer token is wrong"),
            ("another site's Origin", "POST", with("Origin", "http://evil.example"), good, 403, "Origin 'http://evil.example' is not this listener"),
            ("a rebound Host", "POST", with("Host", "evil.example:\(port)"), good, 403, "Host 'evil.example:\(port)' is not this listener"),
            ("another port", "POST", with("Host", "127.0.0.1:1"), good, 403, "is not this listener"),
            ("a form's content type", "POST", with("Content-Type", "application/x-www-form-urlencoded"),
             "uid=04a224b2c35e80&name=door-key", 415, "send the name as JSON"),
            ("text/plain (no preflight)", "POST", with("Content-Type", "text/plain"), good, 415, "not 'text/plain'"),
            ("no request token", "POST", without("X-Tagrouter-CSRF"), good, 403, "the request token (X-Tagrouter-CSRF"),
            ("a wrong request token", "POST", with("X-Tagrouter-CSRF", "0123456789abcdef0123456789abcdef"), good, 403, "is missing or wrong"),
            ("an oversized body", "POST", page, #"{"uid":"04a224b2c35e80","name":""# + String(repeating: "x", count: 5000) + #""}"#,
             413, "at most 4096 bytes"),
            ("a body without a length", "POST", with("Transfer-Encoding", "chunked"), "5\r\nhello\r\n0\r\n\r\n", 411, "Content-Length"),
            ("GET", "GET", page, nil, 405, "takes POST"),
            ("a CORS preflight", "OPTIONS", page, nil, 405, "takes POST"),
            ("a body that is not JSON", "POST", page, "{uid", 400, "the body is not JSON"),
            ("an empty name", "POST", page, #"{"uid":"04a224b2c35e80","name":" "}"#, 422, "a tag needs a name"),
            ("a name in use", "POST", page, #"{"uid":"04a224b2c35e80","name":"spare-key"}"#, 422, "the name 'spare-key' is already used"),
            ("an escape sequence in the name", "POST", page, #"{"uid":"04a224b2c35e80","name":"door\u001b]0;owned\u0007"}"#, 422,
             "the name holds a control or formatting character"),
            ("a bidi override in the name", "POST", page, #"{"uid":"04a224b2c35e80","name":"door\u202ekey"}"#, 422,
             "the name holds a control or formatting character"),
            ("an escape sequence in a group", "POST", page, #"{"uid":"04a224b2c35e80","name":"door-key","groups":"fam\u001b[2Jily"}"#, 422,
             "the group 'fam[2Jily' holds a control or formatting character"),
        ]
        for refusal in refusals {
            let answer = try exchange(port, refusal.method, "/api/tags", headers: refusal.headers, body: refusal.body)
            #expect(answer.status == refusal.status && answer.body.contains(refusal.says), "\(refusal.what): \(answer.head)\n\(answer.body)")
            #expect(!answer.head.lowercased().contains("access-control-allow"), "\(refusal.what): \(answer.head)")
            #expect(try text(file) == before, "\(refusal.what) changed the file")
        }

        // The page's own request.
        let named = try exchange(port, "POST", "/api/tags", headers: page, body: good)
        #expect(named.status == 200 && named.body.contains("added 'door-key' (04a224b2c35e80)"), "\(named.head)\n\(named.body)")
        #expect(try text(file) == before.replacingOccurrences(
            of: Self.spare + "\n", with: Self.spare + "\n" + #"  - { name: "door-key", uid: "04a224b2c35e80", groups: ["family"] }"# + "\n"))
        try await daemon.waitForStderr(containing: "tag named from the live page")
        try await stop(daemon)
    }

    /// Without a token naming is off (every user of the machine could otherwise write the tags); with
    /// `allow_naming: true` it works from this listener's own page, still refusing another site's.
    @Test func withoutATokenNamingIsOffUnlessAllowed() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        var (daemon, port, file) = try await daemon(setup, metrics: "{ listen: \"127.0.0.1:0\" }")
        let before = try text(file)
        let good = #"{"uid":"04a224b2c35e80","name":"door-key"}"#

        let off = try exchange(port, "GET", "/api/naming", headers: ["Host": "127.0.0.1:\(port)"])
        #expect(off.status == 200 && off.body.contains(#""allowed":false"#) && off.body.contains("metrics.allow_naming: true"), "\(off.body)")
        let refused = try exchange(port, "POST", "/api/tags", headers: ["Host": "127.0.0.1:\(port)", "Content-Type": "application/json", "X-Tagrouter-CSRF": "x"], body: good)
        #expect(refused.status == 403 && refused.body.contains("naming tags from the page is off"), "\(refused.body)")
        #expect(try text(file) == before)
        // Nor can a page whose name was rebound to this listener read the taps, token or not.
        for path in ["/api/status", "/api/events", "/metrics"] {
            let rebound = try exchange(port, "GET", path, headers: ["Host": "evil.example:\(port)"])
            #expect(rebound.status == 403 && rebound.body.contains("Host 'evil.example:\(port)' is not this listener"), "\(path): \(rebound.body)")
        }
        let own = try exchange(port, "GET", "/api/status", headers: ["Host": "127.0.0.1:\(port)"])
        #expect(own.status == 200 && own.body.contains("\"readers\""), "\(own.body)")
        try await stop(daemon)

        (daemon, port, file) = try await self.daemon(setup, metrics: "{ listen: \"127.0.0.1:0\", allow_naming: true }")
        let allowed = before.replacingOccurrences(of: "{ listen: \"127.0.0.1:0\" }", with: "{ listen: \"127.0.0.1:0\", allow_naming: true }")
        #expect(try text(file) == allowed)
        let page = try pageHeaders(port, host: "localhost:\(port)")
        let foreign = try exchange(port, "POST", "/api/tags", headers: page.merging(["Origin": "http://evil.example"]) { $1 }, body: good)
        #expect(foreign.status == 403, "\(foreign.body)")
        let rebound = try exchange(port, "POST", "/api/tags", headers: page.merging(["Host": "evil.example:\(port)", "Origin": "http://evil.example:\(port)"]) { $1 }, body: good)
        #expect(rebound.status == 403, "\(rebound.body)")
        #expect(try text(file) == allowed)
        let named = try exchange(port, "POST", "/api/tags", headers: page, body: good)
        #expect(named.status == 200, "\(named.body)")
        #expect(try text(file).contains(#"  - { name: "door-key", uid: "04a224b2c35e80" }"#))
        try await stop(daemon)
    }

    /// The file on disk was broken after the daemon started: the name is written, the reload is refused, and the
    /// answer (which the card shows) says so with the problem at its line, as `tagrouter tags learn` says it.
    @Test func aRefusedReloadIsSaidInTheAnswer() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let (daemon, port, file) = try await daemon(setup, metrics: "{ listen: \"127.0.0.1:0\", allow_naming: true }")
        try (try text(file) + "bogus_key: 1\n").write(toFile: file, atomically: true, encoding: .utf8)
        let answer = try exchange(port, "POST", "/api/tags", headers: try pageHeaders(port, host: "127.0.0.1:\(port)"), body: #"{"uid":"04a224b2c35e80","name":"door-key"}"#)
        #expect(answer.status == 500, "\(answer.head)\n\(answer.body)")
        #expect(answer.body.contains("added 'door-key' (04a224b2c35e80)"), "\(answer.body)")
        #expect(answer.body.contains("the daemon refused the changed config and keeps the previous one"), "\(answer.body)")
        #expect(answer.body.contains("bogus_key"), "\(answer.body)")
        try await daemon.waitForStderr(containing: "tag not named from the live page")
        try await stop(daemon)
    }
}

import Foundation
import TagRouter
import TestSupport
import Testing

@testable import OpenURLPlugin

@Suite struct OpenURLPluginTests {
    @Test(arguments: [
        ("https://example.com/a", "https"), ("HTTP://EXAMPLE.COM", "http"), ("mailto:a@b.c", "mailto"),
        ("tel:+4912345", "tel"), ("sms:+4912345", "sms"), ("Https://x.y/?q=a b".replacingOccurrences(of: " ", with: "%20"), "https"),
    ])
    func allowsListedSchemes(uri: String, scheme: String) throws {
        #expect(try SchemePolicy(allowing: ["http", "https", "mailto", "tel", "sms"]).check(uri) == scheme)
    }

    @Test(arguments: [
        ("javascript:alert(1)", SchemePolicy.Refusal.notAllowed(scheme: "javascript")),
        ("JaVaScRiPt:alert(1)", .notAllowed(scheme: "javascript")),
        ("file:///etc/passwd", .notAllowed(scheme: "file")),
        ("data:text/html,<script>alert(1)</script>", .notAllowed(scheme: "data")),
        ("spotify:track:1", .notAllowed(scheme: "spotify")),
        (" javascript:alert(1)", .controlCharacter(offset: 0)),
        ("java\tscript:alert(1)", .controlCharacter(offset: 4)),
        ("java\nscript:alert(1)", .controlCharacter(offset: 4)),
        ("\u{0}https://example.com", .controlCharacter(offset: 0)),
        ("https://example.com/\u{7f}", .controlCharacter(offset: 20)),
        ("https://example.com/\u{202e}moc.live", .controlCharacter(offset: 20)),
        ("https://example.com\u{a0}x", .controlCharacter(offset: 19)),
        ("-https://example.com", .noScheme), ("//example.com", .noScheme), ("example.com", .noScheme),
        ("ｈttps://example.com", .noScheme), ("1http://x", .noScheme), (":x", .noScheme),
        ("", .empty), ("https://" + String(repeating: "a", count: 9000), .tooLong(9008)),
    ])
    func refusesEverythingElse(uri: String, refusal: SchemePolicy.Refusal) {
        #expect(throws: refusal) { try SchemePolicy(allowing: ["http", "https", "mailto", "tel", "sms"]).check(uri) }
    }

    @Test func opensAllowedURIsWithTheHandlerAndNeverTheRefusedOnes() async throws {
        let sandbox = try Sandbox()
        let opener = try recordingScript(in: sandbox, name: "opener", log: "opened")
        let (plugin, action) = try makeAction(OpenURLPlugin.self, "~", section: "handler: [\(opener), \"{{uri}}\"]")
        let refused = [
            "javascript:alert(1)", "JAVASCRIPT:alert(1)", "file:///etc/passwd", "data:text/html,x", " https://x", "java\tscript:x",
            "vbscript:x", "about:blank", "$(touch pwned)", "-x",
        ]
        for uri in refused {
            let error = try #require(await failure(of: action, Delivery(event: tagEvent(uri: uri), route: "test")))
            #expect(!error.isRetryable)
            #expect(error.description.contains("refused"))
        }
        #expect(plugin.refusedCount == refused.count)
        #expect(!sandbox.exists("opened"), "a refused URI reached the opener")
        #expect(await failure(of: action, Delivery(event: tagEvent(text: "no uri"), route: "test"))?.description.contains("no URI") == true)

        let uri = "https://example.com/a?b=$(touch%20pwned);c`id`"
        try await action.perform(Delivery(event: tagEvent(uri: uri), route: "test"))
        #expect(try recordedArguments(sandbox, "opened") == [[uri]])
        #expect(!sandbox.exists("pwned"))
    }

    @Test func perSchemeHandlersAndExtraSchemes() async throws {
        let sandbox = try Sandbox()
        let browser = try recordingScript(in: sandbox, name: "browser", log: "browser.log")
        let spotify = try recordingScript(in: sandbox, name: "spotify", log: "spotify.log")
        let (_, action) = try makeAction(OpenURLPlugin.self, "'{{text}}'", section: """
            allow_schemes: [https, Spotify]
            handler: [\(browser), --new-tab, "{{uri}}"]
            handlers: {spotify: [\(spotify), --uri, "{{uri}}", "{{reader}}"]}
            """)
        try await action.perform(Delivery(event: tagEvent(text: "spotify:track:6rqhFgbbKwnb9MLmUQDhG6"), route: "test"))
        try await action.perform(Delivery(event: tagEvent(text: "https://example.com/"), route: "test"))
        #expect(try recordedArguments(sandbox, "spotify.log") == [["--uri", "spotify:track:6rqhFgbbKwnb9MLmUQDhG6", "door"]])
        #expect(try recordedArguments(sandbox, "browser.log") == [["--new-tab", "https://example.com/"]])
        #expect(await failure(of: action, Delivery(event: tagEvent(text: "http://example.com/"), route: "test")) != nil)
    }

    @Test func confirmationOpensOnlyWhenAccepted() async throws {
        let sandbox = try Sandbox()
        let opener = try recordingScript(in: sandbox, name: "opener", log: "opened")
        let accept = try sandbox.write("accept", "#!/bin/sh\nprintf '%s\\0' \"$@\" > '\(sandbox.file("asked"))'\necho open\n", executable: true)
        let dismiss = try sandbox.write("dismiss", "#!/bin/sh\nexit 0\n", executable: true)
        let ignore = try sandbox.write("ignore", "#!/bin/sh\necho $$ > '\(sandbox.file("ignored"))'\nexec sleep 300\n", executable: true)
        let delivery = Delivery(event: tagEvent(uri: "https://example.com/<b>x</b>"), route: "test")

        let (_, dismissed) = try makeAction(OpenURLPlugin.self, "{confirm: true}", section: "{handler: [\(opener), \"{{uri}}\"], notifier: [\(dismiss)]}")
        try await dismissed.perform(delivery)
        // confirm_timeout leaves the notifier time to start and write its pid on a loaded machine.
        let (_, ignored) = try makeAction(
            OpenURLPlugin.self, "{confirm: true, confirm_timeout: 3s}", section: "{handler: [\(opener), \"{{uri}}\"], notifier: [\(ignore)]}")
        try await ignored.perform(delivery)
        #expect(!sandbox.exists("opened"))
        let notifier = try #require(pid_t(sandbox.read("ignored").trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(await eventually { isGone(notifier) }, "the unanswered notification was not closed")

        let (_, accepted) = try makeAction(OpenURLPlugin.self, "~", section: "{confirm: true, handler: [\(opener), \"{{uri}}\"], notifier: [\(accept)]}")
        try await accepted.perform(delivery)
        #expect(try recordedArguments(sandbox, "opened") == [["https://example.com/<b>x</b>"]])
        let asked = try recordedArguments(sandbox, "asked").first ?? []
        #expect(asked.contains("--action=open=Open"))
        #expect(asked.last == "https://example.com/&lt;b&gt;x&lt;/b&gt;")
    }

    @Test func emptyHandlerIsAConfigError() {
        #expect(throws: ConfigErrors.self) { try makeAction(OpenURLPlugin.self, "~", section: "handler: []") }
        #expect(throws: ConfigErrors.self) { try makeAction(OpenURLPlugin.self, "~", section: "handlers: {spotify: []}") }
    }

    /// A script that appends its arguments (NUL-separated, one invocation per line) to `log`.
    private func recordingScript(in sandbox: Sandbox, name: String, log: String) throws -> String {
        try sandbox.write(name, "#!/bin/sh\n{ printf '%s\\0' \"$@\"; echo; } >> '\(sandbox.file(log))'\n", executable: true)
    }

    /// What a recording script was called with, one argument list per call.
    private func recordedArguments(_ sandbox: Sandbox, _ log: String) throws -> [[String]] {
        try sandbox.read(log).split(separator: "\n").map { line in line.split(separator: "\0", omittingEmptySubsequences: false).dropLast().map(String.init) }
    }
}

import Foundation
import TagRouter
import TestSupport
import Testing

@testable import WebhookPlugin

/// Header values and URLs rendered from tag contents, against a real HTTP server:
/// a value that would smuggle a header, leave the literal host or change the
/// scheme fails that event for good, before any byte is sent.
@Suite struct HostileWebhookTests {
    static func refusal(_ action: any Action, text: String? = nil, uri: String? = nil) async -> String? {
        guard case .permanent(let message)? = await failure(of: action, Delivery(event: tagEvent(text: text, uri: uri), route: "door")) else {
            return nil
        }
        return message
    }

    @Test(arguments: [
        ("a\r\nX-Evil: 1", "a control character U+000D at character 2"),
        ("a\u{85}b", "a control character U+0085 at character 2"),
        ("a\u{0}b", "a NUL character U+0000 at character 2"),
        ("\u{1B}[2J", "a control character U+001B at character 1"),
    ])
    func aHeaderValueWithAControlCharacterIsRefused(_ text: String, _ problem: String) async throws {
        let server = try await HTTPTestServer([.init(), .init()])
        let (_, action) = try makeAction(WebhookPlugin.self, "{url: \(server.url), headers: {X-Text: '{{text}}'}}")
        let message = try #require(await Self.refusal(action, text: text))
        #expect(message == "webhook: route 'door': header 'X-Text' has \(problem); refusing to send it")
        try await action.perform(Delivery(event: tagEvent(text: "ok\tfine"), route: "door"))
        let requests = await server.waitForRequests(1)
        #expect(requests.map { $0.headers["x-text"] } == ["ok\tfine"], "a tab is allowed in a header value")
    }

    @Test(arguments: [
        ("{{uri}}", "file:///etc/passwd", "the URL's scheme is 'file'; only http and https are sent"),
        ("{{uri}}", "gopher://127.0.0.1/", "the URL's scheme is 'gopher'; only http and https are sent"),
        ("{{uri}}", "not a url", "the URL has a space U+0020 at character 4"),
        ("{{uri}}", "http://", "the URL does not parse as a URL with a host"),
        ("{{uri}}", "http://127.0.0.1/\n", "the URL has a control character U+000A at character 18"),
        ("{{uri}}://127.0.0.1/", "ftp", "the URL's scheme is 'ftp'; only http and https are sent"),
        ("http://127.0.0.1:1{{uri}}", "@evil.example/", "the URL's host is 'evil.example' but the url template names '127.0.0.1'"),
        ("http://127.0.0.1{{uri}}", ".evil.example/", "the URL's host is '127.0.0.1.evil.example' but the url template names '127.0.0.1'"),
        ("http://[::1]{{uri}}", "@evil.example/", "the URL's host is 'evil.example' but the url template names '::1'"),
        ("http://127.0.0.1:1/{{uri}}", "\u{85}", "the URL has a control character U+0085 at character 20"),
    ])
    func aURLThatLeavesWhatTheTemplateSaidIsRefused(_ template: String, _ uri: String, _ problem: String) async throws {
        let (_, action) = try makeAction(WebhookPlugin.self, "url: '\(template)'")
        let message = try #require(await Self.refusal(action, uri: uri))
        #expect(message == "webhook: route 'door': \(problem); refusing to send it")
    }

    @Test func aURLFromTheTagThatStaysHTTPIsSent() async throws {
        let server = try await HTTPTestServer([.init()])
        let (_, action) = try makeAction(WebhookPlugin.self, "url: '{{uri}}'")
        try await action.perform(Delivery(event: tagEvent(uri: server.url + "?from=tag"), route: "door"))
        #expect(await server.waitForRequests(1).map(\.path) == ["/hook?from=tag"])
    }
}

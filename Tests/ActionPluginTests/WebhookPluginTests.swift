import ChildProcess
import Foundation
import OrderedJSON
import TagRouter
import TestSupport
import Testing

@testable import WebhookPlugin

@Suite struct WebhookPluginTests {
    @Test func postsTheEventWithHeadersIdempotencyKeyAndSignature() async throws {
        let sandbox = try Sandbox()
        let secret = "s3cr3t-\(UUID().uuidString)"
        try sandbox.write("hmac.key", secret + "\n", secret: true)
        try sandbox.write("token", "long-lived-token\n", secret: true)
        let server = try await HTTPTestServer([.init()], hmacKey: secret)
        let (_, action) = try makeAction(WebhookPlugin.self, """
            url: "\(server.url)?reader={{reader}}"
            headers: {X-Reader: "{{reader}}", X-Text: "{{text}}"}
            bearer_token_file: token
            hmac: {secret_file: hmac.key}
            """, directory: sandbox.path)
        let event = tagEvent(text: "Cheek to Cheek", uri: "https://example.com/a")
        try await action.perform(Delivery(event: event, route: "test"))
        let request = try #require(await server.waitForRequests(1).first)
        #expect(request.method == "POST")
        #expect(request.path == "/hook?reader=door")
        #expect(try JSONValue.parse(request.body) == event.json)
        #expect(request.headers["content-type"] == "application/json")
        #expect(request.headers["idempotency-key"] == event.id)
        #expect(request.headers["x-reader"] == "door")
        #expect(request.headers["x-text"] == "Cheek to Cheek")
        #expect(request.headers["authorization"] == "Bearer long-lived-token")
        #expect(request.headers["x-signature-256"] == "sha256=" + request.hmac)
    }

    @Test func templatedBodyMethodAndSignatureHeader() async throws {
        let sandbox = try Sandbox()
        try sandbox.write("key", "k", secret: true)
        let server = try await HTTPTestServer([.init()], hmacKey: "k")
        let (_, action) = try makeAction(WebhookPlugin.self, """
            url: "\(server.url)"
            method: PUT
            body: '{"tag_id": {{tag_id | json}}, "text": {{text | json}}}'
            hmac: {secret_file: key, header: X-Hub-Signature-256}
            """, directory: sandbox.path)
        try await action.perform(Delivery(event: tagEvent(text: "say \"hi\"\n"), route: "test"))
        let request = try #require(await server.waitForRequests(1).first)
        #expect(request.method == "PUT")
        #expect(try JSONValue.parse(request.body) == ["tag_id": "04-A2-24-B2-C3-5E-80", "text": "say \"hi\"\n"])
        #expect(request.headers["x-hub-signature-256"] == "sha256=" + request.hmac)
    }

    @Test func serverErrorsAndTooManyRequestsAreRetryableWithRetryAfter() async throws {
        let server = try await HTTPTestServer([
            .init(status: 500), .init(status: 503, headers: ["Retry-After": "7"]), .init(status: 429, headers: ["Retry-After": "2"]), .init(status: 204),
        ])
        let (_, action) = try makeAction(WebhookPlugin.self, "url: \(server.url)")
        let event = tagEvent()
        let first = try #require(await failure(of: action, Delivery(event: event, route: "test", attempt: 1)))
        #expect(first.isRetryable && first.retryAfter == nil)
        #expect(first.description.contains("HTTP 500"))
        let second = try #require(await failure(of: action, Delivery(event: event, route: "test", attempt: 2)))
        #expect(second.retryAfter == .seconds(7))
        let third = try #require(await failure(of: action, Delivery(event: event, route: "test", attempt: 3)))
        #expect(third.retryAfter == .seconds(2))
        #expect(await failure(of: action, Delivery(event: event, route: "test", attempt: 4)) == nil)
        let requests = await server.waitForRequests(4)
        #expect(Set(requests.map { $0.headers["idempotency-key"] }) == [event.id], "every retry carries the same key")
    }

    @Test func clientErrorsAreNotRetried() async throws {
        let server = try await HTTPTestServer([.init(status: 400)])
        let (_, action) = try makeAction(WebhookPlugin.self, "url: \(server.url)")
        let error = try #require(await failure(of: action, Delivery(event: tagEvent(), route: "test")))
        #expect(!error.isRetryable)
        #expect(error.description.contains("HTTP 400"))
    }

    @Test func hangingServerHitsTheTimeout() async throws {
        let server = try await HTTPTestServer([.init(delay: 60)])
        let (_, action) = try makeAction(WebhookPlugin.self, "{url: \(server.url), timeout: 500ms}")
        let error = try #require(await failure(of: action, Delivery(event: tagEvent(), route: "test")))
        #expect(error.isRetryable)
        #expect(error.description.lowercased().contains("timeout") || error.description.lowercased().contains("timed out"))
    }

    /// The server answers after ten minutes: only the cancellation can end the delivery within the time limit.
    @Test(.timeLimit(.minutes(1))) func cancellingTheTaskAbortsAHangingRequest() async throws {
        let server = try await HTTPTestServer([.init(delay: 600)])
        let (_, action) = try makeAction(WebhookPlugin.self, "{url: \(server.url), timeout: 60s}")
        let delivery = Task { await failure(of: action, Delivery(event: tagEvent(), route: "test")) }
        _ = await server.waitForRequests(1)
        delivery.cancel()
        let error = try #require(await delivery.value)
        #expect(error.isRetryable, "a stopped delivery must be spooled and sent again: \(error)")
        #expect(error.description.contains("shutting down"))
    }

    @Test func anAlreadyCancelledTaskSendsNothing() async throws {
        let server = try await HTTPTestServer([.init()])
        let (_, action) = try makeAction(WebhookPlugin.self, "url: \(server.url)")
        let delivery = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await failure(of: action, Delivery(event: tagEvent(), route: "test"))
        }
        #expect(try #require(await delivery.value).isRetryable)
        let next = tagEvent()
        try await action.perform(Delivery(event: next, route: "test"))
        let first = try #require(await server.waitForRequests(1).first)
        #expect(first.headers["idempotency-key"] == next.id, "the cancelled request reached the server")
    }

    @Test(arguments: [
        ("https://user:pw@ha.local/api", "https://***@ha.local/api"),
        ("http://token@h:8123/x?a=b@c", "http://***@h:8123/x?a=b@c"),
        ("https://ha.local/a@b", "https://ha.local/a@b"),
        ("http://h/?u=x@y", "http://h/?u=x@y"),
        ("no scheme user:pw@h", "no scheme user:pw@h"),
    ])
    func urlsAreShownWithoutTheirUserinfo(url: String, shown: String) {
        #expect(URLDisplay.maskingUserinfo(url) == shown)
    }

    @Test func refusedConnectionIsRetryable() async throws {
        let port = try await HTTPTestServer([.init()]).port  // released at once: the port is closed again
        let (_, action) = try makeAction(WebhookPlugin.self, "url: http://127.0.0.1:\(port)/")
        #expect(await eventually { await failure(of: action, Delivery(event: tagEvent(), route: "test"))?.isRetryable == true })
    }

    @Test func headerInjectionFromTagTextIsRefused() async throws {
        let server = try await HTTPTestServer([.init()])
        let (_, action) = try makeAction(WebhookPlugin.self, "{url: \(server.url), headers: {X-Text: '{{text}}'}}")
        let error = try #require(await failure(of: action, Delivery(event: tagEvent(text: "a\r\nX-Evil: 1"), route: "test")))
        #expect(!error.isRetryable)
        #expect(await server.requests.isEmpty)
    }

    @Test func tlsIsVerifiedUnlessInsecure() async throws {
        let sandbox = try Sandbox()
        let generated = try await ChildProcess.run(
            ChildCommand([
                "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
                "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                "-keyout", sandbox.file("key.pem"), "-out", sandbox.file("cert.pem"),
            ]), options: ChildOptions(timeout: .seconds(20)))
        #expect(generated.succeeded, "openssl: \(generated.stderrText)")
        let server = try await HTTPTestServer([.init()], certificate: (sandbox.file("cert.pem"), sandbox.file("key.pem")))
        let (_, verifying) = try makeAction(WebhookPlugin.self, "url: \(server.url)")
        let error = try #require(await failure(of: verifying, Delivery(event: tagEvent(), route: "test")))
        #expect(error.description.lowercased().contains("certificate"))
        #expect(await server.requests.isEmpty)
        let (_, insecure) = try makeAction(WebhookPlugin.self, "{url: \(server.url), insecure: true, method: GET}")
        try await insecure.perform(Delivery(event: tagEvent(), route: "test"))
        let request = try #require(await server.waitForRequests(1).first)
        #expect(request.method == "GET" && request.body.isEmpty && request.headers["content-type"] == nil)
    }

    @Test func retryAfterParsesSecondsAndDates() {
        let now = Date(timeIntervalSince1970: 1_445_412_480)
        #expect(RetryAfter.delay("120", now: now) == .seconds(120))
        #expect(RetryAfter.delay("Wed, 21 Oct 2015 07:28:30 GMT", now: now) == .seconds(30))
        #expect(RetryAfter.delay("Wed, 21 Oct 2015 07:27:00 GMT", now: now) == .zero)
        #expect(RetryAfter.delay("soon", now: now) == nil)
    }

    @Test func hmacMatchesTheRFC4231Vector() {
        // RFC 4231 test case 2.
        let signer = HMACSigner(key: Array("Jefe".utf8), header: "X-Signature-256")
        #expect(signer.headerValue(for: Array("what do ya want for nothing?".utf8)) == "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }
}

import OrderedJSON
import SystemKit
import TagRouter

/// One configured `webhook` action with its own curl thread.
struct WebhookAction: Action {
    let url: Template
    let method: String
    let headers: [(String, Template)]
    let body: Template?
    let contentType: String
    let timeout: Duration
    let verifyTLS: Bool
    let signer: HMACSigner?
    let route: String
    let client: CurlThread
    let check: RenderedRequestCheck

    /// The request for one delivery: body, user headers, then the ones tagrouter owns.
    func request(for delivery: Delivery) -> HTTPRequest {
        // GET and DELETE carry no body unless `body` says otherwise.
        let bodiless = body == nil && (method == "GET" || method == "DELETE")
        let payload = bodiless ? [] : Array((body?.render(delivery.variables) ?? delivery.eventText).utf8)
        var fields: [(name: String, value: String)] = bodiless ? [] : [("Content-Type", contentType)]
        fields += headers.map { ($0.0, $0.1.render(delivery.variables)) }
        fields.append(("Idempotency-Key", delivery.event.id))
        if let signer, let signature = signer.headerValue(for: payload) { fields.append((signer.header, signature)) }
        return HTTPRequest(
            url: url.render(delivery.variables), displayURL: URLDisplay.maskingUserinfo(url.display(delivery.variables)), method: method, headers: fields, body: payload, timeout: timeout, verifyTLS: verifyTLS)
    }

    func perform(_ delivery: Delivery) async throws(ActionError) {
        let request = request(for: delivery)
        if let problem = check.problem(with: request) {
            throw .permanent("webhook: route '\(delivery.route)': \(problem); refusing to send it")
        }
        let response: HTTPResponse
        do {
            response = try await client.send(request)
        } catch {
            switch error.kind {
            case .timedOut, .connection, .cancelled: throw .retryable("webhook: \(error)")
            case .invalidRequest: throw .permanent("webhook: \(error)")
            }
        }
        try WebhookOutcome.check(response, method: method, url: request.displayURL)
        Log.debug("webhook delivered", JSONObject(["route": .string(route), "url": .string(request.displayURL), "status": .int(Int64(response.status))]))
    }

    func describe(_ delivery: Delivery) -> String {
        let request = request(for: delivery)
        return "\(request.method) \(request.displayURL) (\(request.body.count) bytes)"
    }
}

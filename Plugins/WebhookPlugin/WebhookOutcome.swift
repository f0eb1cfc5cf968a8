import TagRouter

/// What an HTTP answer means for the delivery: 2xx done; connection trouble,
/// 5xx and 429 may pass (retry, after `Retry-After` when the server says);
/// any other status will not.
enum WebhookOutcome {
    static func check(_ response: HTTPResponse, method: String, url: String) throws(ActionError) {
        let status = response.status
        if (200..<300).contains(status) { return }
        let snippet = String(decoding: response.body.prefix(200), as: UTF8.self)
        let message = "webhook: \(method) \(url) answered HTTP \(status)" + (snippet.isEmpty ? "" : ": \(snippet)")
        if status == 429 || (500..<600).contains(status) {
            throw .retryable(message, after: response.header("Retry-After").flatMap { RetryAfter.delay($0) })
        }
        throw .permanent(message)
    }
}

import TagCore
import TagRouter

/// What the listener serves, read-only: `/` the live page, `/metrics`, and
/// under `/api/` the status as JSON and the live event stream. With a token,
/// everything but the page (which holds no data) requires it.
struct Site: Sendable {
    let observer: DaemonObserver
    let token: BearerToken?
    /// What a page opened now starts with.
    let recent: RecentRecords
    /// What the listener turned away, added to `/metrics`.
    let load: ListenerLoad

    func respond(to request: HTTPRequest) -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            return .text(405, "method not allowed: the listener is read-only; use GET", headers: [("Allow", "GET, HEAD")])
        }
        if request.path == "/" || request.path == "/index.html" {
            return HTTPResponse(contentType: "text/html; charset=utf-8", headers: LivePage.headers, body: LivePage.html)
        }
        guard ["/metrics", "/api/status", "/api/events"].contains(request.path) else {
            return .text(404, "not found: \(request.path); served here are /, /metrics, /api/status and /api/events")
        }
        if let token, !token.admits(request.authorization) {
            let problem = request.authorization == nil ? "this listener needs a bearer token" : "the bearer token is wrong"
            return .text(401, "unauthorized: \(problem) (the contents of metrics.token_file, as `Authorization: Bearer <token>`)",
                         headers: [("WWW-Authenticate", "Bearer realm=\"tagrouter\"")])
        }
        switch request.path {
        case "/metrics":
            var listener = PrometheusText()
            load.write(to: &listener)
            return HTTPResponse(contentType: PrometheusText.contentType, body: Array((DaemonMetrics.text(observer.status) + listener.text).utf8))
        case "/api/status":
            return HTTPResponse(contentType: "application/json", body: Array(observer.status.json.serialized().utf8))
        default:
            return HTTPResponse(contentType: "text/event-stream", stream: EventFeed(observer: observer, recent: recent))
        }
    }
}

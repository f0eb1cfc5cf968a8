import TagCore
import TagRouter

/// What the listener serves, read-only: `/metrics`, and under `/api/` the
/// status as JSON. With a token, each requires it.
struct Site: Sendable {
    let observer: DaemonObserver
    let token: BearerToken?

    func respond(to request: HTTPRequest) -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            return .text(405, "method not allowed: the listener is read-only; use GET", headers: [("Allow", "GET, HEAD")])
        }
        guard ["/metrics", "/api/status"].contains(request.path) else {
            return .text(404, "not found: \(request.path); served here are /metrics and /api/status")
        }
        if let token, !token.admits(request.authorization) {
            let problem = request.authorization == nil ? "this listener needs a bearer token" : "the bearer token is wrong"
            return .text(401, "unauthorized: \(problem) (the contents of metrics.token_file, as `Authorization: Bearer <token>`)",
                         headers: [("WWW-Authenticate", "Bearer realm=\"tagrouter\"")])
        }
        switch request.path {
        case "/metrics":
            return HTTPResponse(contentType: PrometheusText.contentType, body: Array(DaemonMetrics.text(observer.status).utf8))
        default:
            return HTTPResponse(contentType: "application/json", body: Array(observer.status.json.serialized().utf8))
        }
    }
}

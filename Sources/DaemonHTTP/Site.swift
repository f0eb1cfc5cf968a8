import OrderedJSON
import TagRouter

/// What the listener serves: `/` the live page, `/metrics`, and under `/api/`
/// the status as JSON, the live event stream, and the page's naming of tags
/// (`NamingEndpoint`, the one thing that writes). With a token, everything but
/// the page (which holds no data) requires it; with or without, a rebound name
/// or another site's page cannot read the taps (`OriginCheck`).
struct Site: Sendable {
    let observer: DaemonObserver
    let token: BearerToken?
    /// What a page opened now starts with.
    let recent: RecentRecords
    /// What the listener turned away, added to `/metrics`.
    let load: ListenerLoad
    /// Who may read: not a page whose name was made to resolve to this listener.
    let origin: OriginCheck
    let naming: NamingEndpoint

    static let paths = ["/metrics", "/api/status", "/api/events", "/api/naming", "/api/tags"]

    func respond(to request: HTTPRequest) -> HTTPReply {
        guard request.method == "GET" || request.method == "HEAD" || request.path == "/api/tags" else {
            return .answer(.text(405, "method not allowed: the listener is read-only but for POST /api/tags; use GET", headers: [("Allow", "GET, HEAD")]))
        }
        if request.path == "/" || request.path == "/index.html" {
            return .answer(HTTPResponse(contentType: "text/html; charset=utf-8", headers: LivePage.headers, body: LivePage.html))
        }
        guard Self.paths.contains(request.path) else {
            return .answer(.text(404, "not found: \(request.path); served here are /, \(Self.paths.joined(separator: ", "))"))
        }
        if let token, !token.admits(request.authorization) {
            let problem = request.authorization == nil ? "this listener needs a bearer token" : "the bearer token is wrong"
            return .answer(.text(401, "unauthorized: \(problem) (the contents of metrics.token_file, as `Authorization: Bearer <token>`)",
                                 headers: [("WWW-Authenticate", "Bearer realm=\"tagrouter\"")]))
        }
        // The naming endpoints check `Host` and `Origin` themselves, strictly: they write.
        if !NamingEndpoint.paths.contains(request.path), let problem = origin.readProblem(request) {
            return .answer(.text(403, "forbidden: \(problem)"))
        }
        switch request.path {
        case "/metrics":
            var listener = PrometheusText()
            load.write(to: &listener)
            return .answer(HTTPResponse(contentType: PrometheusText.contentType, body: Array((DaemonMetrics.text(observer.status) + listener.text).utf8)))
        case "/api/status":
            return .answer(HTTPResponse(contentType: "application/json", body: Array(observer.status.json.serialized().utf8)))
        case "/api/naming":
            return .answer(naming.status(request))
        case "/api/tags":
            return naming.reply(to: request)
        default:
            return .answer(HTTPResponse(contentType: "text/event-stream", stream: EventFeed(observer: observer, recent: recent)))
        }
    }
}

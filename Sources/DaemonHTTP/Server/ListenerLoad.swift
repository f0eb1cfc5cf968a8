import Synchronization

/// What the HTTP listener turned away, for its own `/metrics`: connections that
/// had sent no request and were shut down to make room (`ConnectionGuard`), live
/// pages answered 503, and the live pages open now.
final class ListenerLoad: Sendable {
    private let shutDown = Atomic<Int>(0)
    private let refused = Atomic<Int>(0)
    private let pages = Atomic<Int>(0)

    var connectionsShutDown: Int { shutDown.load(ordering: .relaxed) }
    var pagesRefused: Int { refused.load(ordering: .relaxed) }

    func connectionShutDown() { shutDown.add(1, ordering: .relaxed) }
    func pageRefused() { refused.add(1, ordering: .relaxed) }
    func pagesOpen(_ count: Int) { pages.store(count, ordering: .relaxed) }

    func write(to text: inout PrometheusText) {
        text.family("tagrouter_http_connections_shut_total", "counter", "HTTP connections that had sent no request, shut down to make room for new ones.")
        text.sample("tagrouter_http_connections_shut_total", Double(connectionsShutDown))
        text.family("tagrouter_http_live_pages_refused_total", "counter", "Live pages answered 503 because the most the listener serves were open.")
        text.sample("tagrouter_http_live_pages_refused_total", Double(pagesRefused))
        text.family("tagrouter_http_live_pages", "gauge", "Live-page event streams open now.")
        text.sample("tagrouter_http_live_pages", Double(pages.load(ordering: .relaxed)))
    }
}

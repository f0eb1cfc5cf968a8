import Foundation
import Harness
import TagCore
import TestSupport
import Testing

/// The HTTP listener under clients that would starve it: half-open requests
/// that never finish their headers, and more live pages than it serves. A
/// `/metrics` scrape still answers, and the live pages past the cap hear why.
@Suite(.timeLimit(.minutes(3)))
struct HTTPLimitsEndToEndTests {
    /// What the daemon's HTTP listener holds at most (HTTPServer.streamLimit, waitingLimit).
    static let streamLimit = 16
    static let waitingLimit = 32

    func daemon(_ setup: Setup) async throws -> (RunningTool, Int) {
        let daemon = try setup.daemon(config: """
            readers: []
            metrics: { listen: "127.0.0.1:0" }
            routes: [{ name: all, actions: [log] }]
            """)
        let address = try await daemon.httpAddress()
        return (daemon, Int(address.split(separator: ":").last ?? "") ?? 0)
    }

    /// 40 connections that sent half a request (the slowloris) and then 20 live pages took every one
    /// of the 32 connections the listener had: `/metrics` went unanswered for minutes.
    @Test func halfOpenRequestsAndLivePagesLeaveRoomForAScrape() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let (daemon, port) = try await daemon(setup)

        let halfOpen = try (0..<40).map { _ in try RawHTTPConnection(port: port) }
        for connection in halfOpen { connection.send("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n") }
        let pages = try (0..<Self.streamLimit + 4).map { _ in try RawHTTPConnection(port: port) }
        for page in pages { page.send("GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n") }
        for page in pages { try page.read(until: "\r\n\r\n") }

        // The first pages stream; those past the cap get a 503 that says why, and are closed.
        let streaming = pages.filter { $0.text.hasPrefix("HTTP/1.1 200") }
        let refused = pages.filter { $0.text.hasPrefix("HTTP/1.1 503") }
        #expect(streaming.count == Self.streamLimit)
        #expect(refused.count == 4)
        for page in streaming { try page.read(until: "event: status") }
        for page in refused {
            try page.readUntilClosed()
            #expect(page.text.contains("16 live pages are open, the most this listener serves at once"), "\(page.text)")
            #expect(page.text.contains("\r\nRetry-After: 10\r\n"), "\(page.text)")
        }

        // A scrape and the status still answer.
        let scrape = try await MetricsScrape("http://127.0.0.1:\(port)/metrics")
        #expect(scrape.status == 200)
        #expect(scrape.value("tagrouter_build_info", ["version": tagrouterVersion]) == 1)
        #expect(scrape.value("tagrouter_http_live_pages") == Double(Self.streamLimit))
        #expect(scrape.value("tagrouter_http_live_pages_refused_total") == 4)
        #expect((scrape.value("tagrouter_http_connections_shut_total") ?? 0) >= Double(halfOpen.count - Self.waitingLimit))
        let status = try RawHTTPConnection(port: port)
        status.send("GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        try status.readUntilClosed()
        #expect(status.text.hasPrefix("HTTP/1.1 200"))

        // The oldest half-open requests were shut down to make room; the newest still finishes and is answered.
        #expect(try halfOpen.filter { try $0.isClosedByServer() }.count >= halfOpen.count - Self.waitingLimit)
        let newest = try #require(halfOpen.last)
        newest.send("Connection: close\r\n\r\n")
        try newest.readUntilClosed()
        #expect(newest.text.hasPrefix("HTTP/1.1 200"), "\(newest.text.prefix(200))")

        // A page that leaves frees its place: a new one streams once the daemon has noticed.
        try #require(streaming.first).hangUp()
        #expect(try await eventually {
            let page = try RawHTTPConnection(port: port)
            page.send("GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            try page.read(until: "\r\n\r\n")
            return page.text.hasPrefix("HTTP/1.1 200")
        })
        daemon.signal(SIGTERM)
        #expect(try await daemon.termination().status == .exited(0))
    }

    /// A request announcing a body of 100 KB and sending three bytes held its connection until the idle
    /// timeout (the body was read and ignored): the listener takes no bodies and answers at once.
    @Test func aRequestBodyIsNotWaitedFor() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let (daemon, port) = try await daemon(setup)
        let connection = try RawHTTPConnection(port: port)
        connection.send("POST /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n\r\nabc")
        try connection.readUntilClosed(timeout: .seconds(10))
        #expect(connection.text.hasPrefix("HTTP/1.1 405"), "\(connection.text.prefix(200))")
        #expect(connection.text.contains("method not allowed: the listener is read-only but for POST /api/tags; use GET"))
        daemon.signal(SIGTERM)
        #expect(try await daemon.termination().status == .exited(0))
    }
}

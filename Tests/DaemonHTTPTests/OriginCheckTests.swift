import TagRouter
import Testing

@testable import DaemonHTTP

/// Which `Host` and `Origin` a request that changes something may bring: a loopback listener
/// answers only its loopback names with its own port (against DNS rebinding), and an `Origin`
/// must be the `Host` it was sent to.
@Suite struct OriginCheckTests {
    func problem(_ listen: String, host: String?, origin: String? = nil) throws -> String? {
        var request = HTTPRequest(method: "POST", path: "/api/tags")
        if let host { request.headers["host"] = host }
        if let origin { request.headers["origin"] = origin }
        return OriginCheck(address: try #require(ListenAddress(listen))).problem(request)
    }

    @Test func aLoopbackListenerAnswersItsLoopbackNamesWithItsPort() throws {
        for host in ["127.0.0.1:9464", "localhost:9464", "LOCALHOST:9464", "127.0.0.2:9464", "[::1]:9464"] {
            #expect(try problem("127.0.0.1:9464", host: host) == nil, "\(host)")
        }
        #expect(try problem("127.0.0.1:80", host: "localhost") == nil)
        #expect(try problem("[::1]:9464", host: "[::1]:9464", origin: "http://[::1]:9464") == nil)
        for host in ["evil.example:9464", "127.0.0.1:9465", "localhost", "10.0.0.1:9464", "127.0.0.1:x", "[::2]:9464", "127.0.0.1.evil.example:9464"] {
            #expect(try problem("127.0.0.1:9464", host: host)?.contains("is not this listener") == true, "\(host)")
        }
        #expect(try problem("127.0.0.1:9464", host: nil) == "the request has no Host header")
    }

    @Test func anOriginMustBeTheHostItWasSentTo() throws {
        #expect(try problem("127.0.0.1:9464", host: "127.0.0.1:9464", origin: "http://127.0.0.1:9464") == nil)
        #expect(try problem("0.0.0.0:9464", host: "pi.local:9464", origin: "http://pi.local:9464") == nil)
        #expect(try problem("0.0.0.0:9464", host: "pi.local", origin: "https://pi.local") == nil)
        for origin in ["http://evil.example", "null", "http://localhost:9464", "http://127.0.0.1:9464.evil.example"] {
            #expect(try problem("127.0.0.1:9464", host: "127.0.0.1:9464", origin: origin)?.contains("is not this listener") == true, "\(origin)")
        }
        // Another machine's listener takes any name the user reaches it by, but still only its own page.
        #expect(try problem("0.0.0.0:9464", host: "pi.local:9464", origin: "http://evil.example")?.contains("Origin") == true)
    }

    func readProblem(_ listen: String, host: String?, origin: String? = nil) throws -> String? {
        var request = HTTPRequest(method: "GET", path: "/api/status")
        if let host { request.headers["host"] = host }
        if let origin { request.headers["origin"] = origin }
        return OriginCheck(address: try #require(ListenAddress(listen))).readProblem(request)
    }

    /// A rebound page reading the status or the event stream sends its own name as `Host`: refused. Clients
    /// that are not browsers (a scraper, curl) may leave out the Host or its port and are answered.
    @Test func aReadIsRefusedOnlyForAReboundNameOrAForeignOrigin() throws {
        for host in ["127.0.0.1:9464", "localhost:9464", "127.0.0.1", "localhost", "[::1]:9464", nil] {
            #expect(try readProblem("127.0.0.1:9464", host: host) == nil, "\(host ?? "no Host")")
        }
        for host in ["evil.example:9464", "evil.example", "10.0.0.1:9464", "127.0.0.1.evil.example:9464", "[::2]:9464"] {
            #expect(try readProblem("127.0.0.1:9464", host: host)?.contains("is not this listener") == true, "\(host)")
        }
        #expect(try readProblem("127.0.0.1:9464", host: "127.0.0.1:9464", origin: "http://evil.example")?.contains("Origin") == true)
        #expect(try readProblem("0.0.0.0:9464", host: "pi.local:9464") == nil)
    }
}

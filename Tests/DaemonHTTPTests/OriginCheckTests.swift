import TagRouter
import Testing

@testable import DaemonHTTP

/// Which `Host` and `Origin` a request that changes something may bring: a loopback listener
/// answers only its loopback names with its own port (against DNS rebinding), and an `Origin`
/// must be the `Host` it was sent to.
@Suite struct OriginCheckTests {
    /// What the check of a listener on `listen` says of a request with these headers: a write's (`problem`) or a read's.
    func problem(_ listen: String, host: String?, origin: String? = nil, reading: Bool = false) throws -> String? {
        var request = HTTPRequest(method: reading ? "GET" : "POST", path: reading ? "/api/status" : "/api/tags")
        if let host { request.headers["host"] = host }
        if let origin { request.headers["origin"] = origin }
        let check = OriginCheck(address: try #require(ListenAddress(listen)))
        return reading ? check.readProblem(request) : check.problem(request)
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

    /// A rebound page reading the status or the event stream sends its own name as `Host`: refused. Clients
    /// that are not browsers (a scraper, curl) may leave out the Host or its port and are answered.
    @Test func aReadIsRefusedOnlyForAReboundNameOrAForeignOrigin() throws {
        for host in ["127.0.0.1:9464", "localhost:9464", "127.0.0.1", "localhost", "[::1]:9464", nil] {
            #expect(try problem("127.0.0.1:9464", host: host, reading: true) == nil, "\(host ?? "no Host")")
        }
        for host in ["evil.example:9464", "evil.example", "10.0.0.1:9464", "127.0.0.1.evil.example:9464", "[::2]:9464"] {
            #expect(try problem("127.0.0.1:9464", host: host, reading: true)?.contains("is not this listener") == true, "\(host)")
        }
        #expect(try problem("127.0.0.1:9464", host: "127.0.0.1:9464", origin: "http://evil.example", reading: true)?.contains("Origin") == true)
        #expect(try problem("0.0.0.0:9464", host: "pi.local:9464", reading: true) == nil)
    }
}

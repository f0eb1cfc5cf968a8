import Foundation
import Testing

@testable import TagRouter

/// The `metrics:` section: addresses, the token a non-loopback listener needs, the textfile.
@Suite struct MetricsSettingsTests {
    static let routes = "routes: [{ name: all, actions: [log] }]\n"

    @Test(arguments: [
        ("127.0.0.1:9464", "127.0.0.1", 9464, true), ("localhost:0", "127.0.0.1", 0, true), ("[::1]:9464", "::1", 9464, true),
        ("0.0.0.0:9464", "0.0.0.0", 9464, false), ("[::]:80", "::", 80, false), ("192.168.1.5:9464", "192.168.1.5", 9464, false),
    ])
    func listenAddressesParse(text: String, host: String, port: Int, loopback: Bool) throws {
        let address = try #require(ListenAddress(text))
        #expect(address.host == host)
        #expect(Int(address.port) == port)
        #expect(address.isLoopback == loopback)
        #expect(ListenAddress(address.description) == address)
    }

    @Test(arguments: ["9464", "127.0.0.1", "127.0.0.1:99999", "example.com:9464", "::1:9464", "[127.0.0.1]:9464", "127.0.0.1:-1"])
    func badListenAddressesAreRefused(text: String) {
        #expect(ListenAddress(text) == nil)
    }

    @Test func aLoopbackListenerAndAFileLoad() throws {
        let config = try load("metrics: { listen: \"127.0.0.1:9464\", file: node/tagrouter.prom, file_interval: 30s }\n" + Self.routes, directory: "/etc/tagrouter")
        #expect(config.metrics == MetricsSettings(listen: ListenAddress("127.0.0.1:9464"), file: "/etc/tagrouter/node/tagrouter.prom", fileInterval: .seconds(30)))
    }

    @Test func withoutTheSectionThereIsNoListener() throws {
        #expect(try load(Self.routes).metrics == nil)
    }

    @Test func anAddressOtherMachinesReachNeedsAToken() {
        #expect(problems("metrics:\n  listen: \"0.0.0.0:9464\"\n" + Self.routes) == [
            "t.yaml:2:11: metrics.listen: 0.0.0.0:9464 is reachable from other machines, so it needs `token_file:` (a file holding a bearer token); add one, or listen on 127.0.0.1",
        ])
    }

    @Test func theTokenIsReadFromItsFile() throws {
        let directory = NSTemporaryDirectory() + "metrics-settings-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "s3cret\n".write(toFile: directory + "/token", atomically: true, encoding: .utf8)
        try "\n".write(toFile: directory + "/empty", atomically: true, encoding: .utf8)
        let config = try load("metrics: { listen: \"0.0.0.0:9464\", token_file: token }\n" + Self.routes, directory: directory)
        #expect(config.metrics?.token == "s3cret")
        #expect(config.metrics?.listen?.isLoopback == false)
        do {
            _ = try load("metrics: { listen: \"0.0.0.0:9464\", token_file: empty }\n" + Self.routes, directory: directory)
            Issue.record("an empty token file loaded")
        } catch {
            #expect(error.errors.map(\.description) == ["t.yaml:1:48: metrics.token_file: the token file is empty; put the token in it"])
        }
    }

    @Test func mistakesAreReportedAtTheirPlace() {
        #expect(problems("metrics: { listen: \"example.com:9464\" }\n" + Self.routes) == [
            "t.yaml:1:20: metrics.listen: expected `host:port` with an IP address (`127.0.0.1:9464`, `[::1]:9464`, `0.0.0.0:9464`), got 'example.com:9464'",
        ])
        #expect(problems("metrics: { file: /tmp/x.prom, file_interval: 100ms }\n" + Self.routes) == [
            "t.yaml:1:46: metrics.file_interval: rewriting the file more often than once a second is not useful; use `1s` or more",
        ])
        #expect(problems("metrics: { lisen: \"127.0.0.1:9464\" }\n" + Self.routes).first?.contains("unknown key 'lisen' (did you mean 'listen'?)") == true)
    }

    @Test func aSectionServingNothingIsAWarning() throws {
        let config = try load("metrics: {}\n" + Self.routes)
        #expect(config.warnings.map(\.description) == ["t.yaml:1:10: warning: metrics: neither `listen` nor `file` is given: nothing is served"])
    }
}

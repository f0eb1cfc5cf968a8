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

    /// A folder for token files, removed by the caller.
    static func folder() throws -> String {
        let directory = NSTemporaryDirectory() + "metrics-settings-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Writes `contents` to `name` in `directory` with `mode`.
    static func write(_ contents: String, _ name: String, in directory: String, mode: Int = 0o600) throws {
        try contents.write(toFile: directory + "/" + name, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: directory + "/" + name)
    }

    @Test func theTokenIsReadFromItsFile() throws {
        let directory = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Self.write("0123456789abcdef-s3cret\n", "token", in: directory)
        let config = try load("metrics: { listen: \"0.0.0.0:9464\", token_file: token }\n" + Self.routes, directory: directory)
        #expect(config.metrics?.token == "0123456789abcdef-s3cret")
        #expect(config.metrics?.listen?.isLoopback == false)
    }

    /// `/dev/null` read as "no token" and opened the listener to anyone; `/dev/zero` is endless. A token file
    /// is a regular file, private to its owner, holding at least 16 bytes a header can carry — or `run` and
    /// `check-config` refuse it, naming the file.
    @Test(arguments: [
        ("/dev/null", "'/dev/null' is not a regular file but a character device; put the secret alone in a file of its own"),
        ("/dev/zero", "'/dev/zero' is not a regular file but a character device; put the secret alone in a file of its own"),
        ("{dir}/empty", "'{dir}/empty' holds no token; put one of at least 16 characters in it (`openssl rand -hex 32 > {dir}/empty`)"),
        ("{dir}/short", "'{dir}/short' holds a token of 15 bytes; use one of at least 16 (`openssl rand -hex 32 > {dir}/short`)"),
        ("{dir}/spaced", "'{dir}/spaced' holds a space or a control character, which an `Authorization` header cannot carry; use letters, digits and punctuation (`openssl rand -hex 32 > {dir}/spaced`)"),
        ("{dir}/shared", "'{dir}/shared' can be read by other users (mode 644); `chmod 600 {dir}/shared`, owned by the user tagrouter runs as"),
        ("{dir}/group", "'{dir}/group' can be read by other users (mode 640); `chmod 600 {dir}/group`, owned by the user tagrouter runs as"),
        ("{dir}/fifo", "'{dir}/fifo' is not a regular file but a named pipe; put the secret alone in a file of its own"),
        ("{dir}/huge", "'{dir}/huge' is 5000 bytes long, more than a token (at most 4096); put the token alone in it"),
    ])
    func aTokenFileThatGuardsNothingIsRefused(path: String, message: String) throws {
        let directory = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Self.write("\n", "empty", in: directory)
        try Self.write("0123456789abcde\n", "short", in: directory)
        try Self.write("0123456789 abcdef\n", "spaced", in: directory)
        try Self.write("0123456789abcdef-shared", "shared", in: directory, mode: 0o644)
        try Self.write("0123456789abcdef-group", "group", in: directory, mode: 0o640)
        try Self.write(String(repeating: "a", count: 5000), "huge", in: directory)
        #expect(mkfifo(directory + "/fifo", 0o600) == 0)
        let file = path.replacingOccurrences(of: "{dir}", with: directory)
        let text = "metrics:\n  listen: \"0.0.0.0:9464\"\n  token_file: \(file)\n" + Self.routes
        let expected = "t.yaml:3:15: metrics.token_file: " + message.replacingOccurrences(of: "{dir}", with: directory)
        for checkOnly in [false, true] {
            do {
                let loader = ConfigLoader(registry: PluginRegistry([LogPlugin.self]), environment: ["HOME": "/tmp"], missingSecretsAreWarnings: checkOnly)
                _ = try loader.load(text: text, file: "t.yaml", directory: directory)
                Issue.record("\(file) was taken as a token file (check-config: \(checkOnly))")
            } catch {
                #expect(error.errors.map(\.description) == [expected], "check-config: \(checkOnly)")
            }
        }
    }

    @Test func checkConfigOnlyWarnsAboutATokenFileNotThereYet() throws {
        let loader = ConfigLoader(registry: PluginRegistry([LogPlugin.self]), environment: ["HOME": "/tmp"], missingSecretsAreWarnings: true)
        let config = try loader.load(text: "metrics: { listen: \"0.0.0.0:9464\", token_file: /nonexistent/token }\n" + Self.routes, file: "t.yaml", directory: "/tmp")
        #expect(config.warnings.map(\.description).first?.contains("cannot read '/nonexistent/token': there is no such file") == true)
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

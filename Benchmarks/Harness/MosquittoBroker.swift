import ChildProcess
import Foundation
import Glibc

/// A real mosquitto broker for tests (the MQTT plugin's and the end-to-end ones): its own
/// config in a temporary directory, listening on a free 127.0.0.1 port,
/// stopped (SIGTERM, so a persistent store is written) and restarted on the
/// same port on demand, removed when the object goes away.
public final class MosquittoBroker: @unchecked Sendable {
    /// How the broker is configured.
    public struct Options {
        /// mosquitto's `max_queued_messages`, set deliberately: its default (1000)
        /// silently drops QoS 1 messages for a subscriber that falls behind.
        public var maxQueuedMessages = 1_000_000
        /// `user: password` pairs; when given, anonymous clients are refused.
        public var users: [String: String] = [:]
        /// Keep sessions, subscriptions and queued messages across a restart.
        public var persistence = false
        /// Serve TLS with a certificate for 127.0.0.1 signed by a throw-away CA (`caFile`).
        public var tls = false
        /// mosquitto's `max_inflight_messages`: QoS 1 messages sent to a client and
        /// not yet acknowledged, at most (MQTT 3.1.1); 0, unlimited, unless a test needs the window.
        public var maxInflightMessages = 0

        public init() {}
    }

    /// The 127.0.0.1 port it listens on (the same across restarts).
    public private(set) var port = 0
    /// Its scratch directory: config, log, store; tests may put their own files here.
    public let directory: URL
    private var config: [String] = []
    private var process: ChildProcess?

    /// Starts a broker on a free port.
    public init(_ options: Options = Options()) async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("mosquitto-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var config = [
            // Run as whoever runs the tests (as root, mosquitto would otherwise
            // switch to user `mosquitto`, who cannot read this directory).
            "user \(NSUserName())",
            "max_queued_messages \(options.maxQueuedMessages)",
            "max_inflight_messages \(options.maxInflightMessages)",
            "log_dest file \(directory.path)/mosquitto.log",
            "log_type error",
            "log_type warning",
            "log_type notice",
        ]
        if options.users.isEmpty {
            config.append("allow_anonymous true")
        } else {
            let passwords = directory.appendingPathComponent("passwords").path
            _ = FileManager.default.createFile(atPath: passwords, contents: nil, attributes: [.posixPermissions: 0o600])
            for (user, password) in options.users {
                try Self.run("/usr/bin/mosquitto_passwd", ["-b", passwords, user, password])
            }
            config += ["allow_anonymous false", "password_file \(passwords)"]
        }
        if options.tls {
            try makeCertificates()
            config += ["cafile \(caFile)", "certfile \(directory.path)/server.pem", "keyfile \(directory.path)/server.key"]
        }
        if options.persistence {
            config += ["persistence true", "persistence_location \(directory.path)/", "autosave_interval 0"]
        }
        self.config = config
        // The free port can be taken by someone else before mosquitto binds it: then try another.
        for attempt in 1...5 {
            port = try Self.freePort()
            do {
                try await start()
                return
            } catch where attempt < 5 && process?.hasExited == true {
                continue
            }
        }
    }

    /// Stopped (SIGTERM: with persistence it writes its store) and gone before its directory is removed and
    /// `deinit` returns: the test process may exit right after, and a broker still saving would outlive the
    /// test and write its store into a directory removed under it (which then stays behind in /tmp).
    deinit {
        process?.end(with: SIGTERM)
        try? FileManager.default.removeItem(at: directory)
    }

    /// The process id of the running mosquitto; nil while it is stopped.
    public var pid: pid_t? { process?.pid }

    /// The CA that signed the broker's certificate, with `Options.tls`.
    public var caFile: String { directory.appendingPathComponent("ca.pem").path }

    private func makeCertificates() throws {
        let dir = directory.path
        try "subjectAltName=IP:127.0.0.1\n".write(toFile: "\(dir)/san.ext", atomically: true, encoding: .utf8)
        let openssl = "/usr/bin/openssl"
        try Self.run(openssl, ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(dir)/ca.key", "-out", caFile, "-days", "1", "-subj", "/CN=tagrouter test CA"])
        try Self.run(openssl, ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(dir)/server.key", "-out", "\(dir)/server.csr", "-subj", "/CN=127.0.0.1"])
        try Self.run(openssl, [
            "x509", "-req", "-in", "\(dir)/server.csr", "-CA", caFile, "-CAkey", "\(dir)/ca.key", "-CAcreateserial",
            "-out", "\(dir)/server.pem", "-days", "1", "-extfile", "\(dir)/san.ext",
        ])
    }

    /// Starts the broker and returns once it listens on its port. One still running (`init` starts it) is
    /// stopped first: a second mosquitto cannot bind the port, and the first would outlive the test. Its own
    /// listening socket is what counts: when another process took the port meanwhile (tests run side by side),
    /// something accepts there while this mosquitto has failed to bind it and ended.
    public func start() async throws {
        await stop()
        let text = (["listener \(port) 127.0.0.1"] + config).joined(separator: "\n") + "\n"
        try text.write(to: directory.appendingPathComponent("mosquitto.conf"), atomically: true, encoding: .utf8)
        try? FileManager.default.removeItem(at: directory.appendingPathComponent("mosquitto.log"))
        let process = try ChildProcess(
            ChildCommand(
                ["/usr/sbin/mosquitto", "-c", directory.appendingPathComponent("mosquitto.conf").path], environment: TestIdentity.childEnvironment()),
            options: ChildOptions(stdout: .null, stderr: .null))
        self.process = process
        let deadline = ContinuousClock.now + .seconds(20)
        while !Self.listens(process.pid, on: port) {
            guard !process.hasExited, ContinuousClock.now < deadline else {
                throw TestFailure(description: "mosquitto did not start on port \(port): \(log)")
            }
            try await Task.sleep(for: .milliseconds(10))  // sleeping, not blocking a thread of the small concurrency pool
        }
    }

    /// Stops the broker gracefully (it saves its persistent store) and waits for it to exit.
    public func stop() async {
        guard let process else { return }
        process.terminate()
        _ = await process.termination()
        self.process = nil
    }

    /// What the broker logged, for failure messages.
    public var log: String {
        (try? String(contentsOf: directory.appendingPathComponent("mosquitto.log"), encoding: .utf8)) ?? ""
    }

    /// A 127.0.0.1 TCP port nobody listens on right now.
    public static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw TestFailure(description: "cannot find a free port: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// True when process `pid` holds a socket listening on TCP `port` (`/proc/net/tcp`, then its descriptors).
    private static func listens(_ pid: pid_t, on port: Int) -> Bool {
        guard let table = try? String(contentsOfFile: "/proc/net/tcp", encoding: .utf8) else { return false }
        let local = String(format: ":%04X", port)
        // Fields: sl, local address, remote address, state (0A: listening), …, inode (the tenth).
        let sockets = Set(table.split(separator: "\n").dropFirst().compactMap { line -> String? in
            let fields = line.split(separator: " ")
            guard fields.count > 9, fields[1].hasSuffix(local), fields[3] == "0A" else { return nil }
            return "socket:[\(fields[9])]"
        })
        guard !sockets.isEmpty, let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd") else { return false }
        return descriptors.contains { descriptor in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(descriptor)")).map(sockets.contains) ?? false
        }
    }

    /// True when something accepts TCP connections on 127.0.0.1:`port`.
    public static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// Runs a tool (`mosquitto_pub`, `openssl`, …) to the end; throws when it exits non-zero.
    public static func run(_ tool: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.environment = TestIdentity.childEnvironment()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TestFailure(description: "\(tool) \(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
        }
    }
}

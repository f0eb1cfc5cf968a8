import ChildProcess
import Foundation
import Harness
import OrderedJSON

/// A real HTTP/1.1 server on a free 127.0.0.1 port (Python's `http.server`,
/// Nagle off), answering from a plan and reporting each request it received.
/// It exits when the test releases it, or when the test process dies (its
/// stdin closes).
public final class HTTPTestServer: Sendable {
    /// One planned answer; the last one repeats.
    public struct Answer: Sendable {
        public var status: Int
        public var headers: [String: String]
        /// Seconds to wait before answering (a hanging server).
        public var delay: Double

        public init(status: Int = 200, headers: [String: String] = [:], delay: Double = 0) {
            self.status = status
            self.headers = headers
            self.delay = delay
        }

        var json: JSONValue {
            var headerObject = JSONObject()
            for (name, value) in headers { headerObject[name] = .string(value) }
            return ["status": .int(Int64(status)), "headers": .object(headerObject), "delay": .double(delay)]
        }
    }

    /// One request as the server saw it.
    public struct Request: Sendable {
        public var method: String
        public var path: String
        /// Lowercase names.
        public var headers: [String: String]
        public var body: String
        /// HMAC-SHA256 of the raw body with the server's key, computed by Python's `hmac`.
        public var hmac: String
        /// The server's clock when the request arrived, in seconds.
        public var time: Double
    }

    public let port: Int
    private let process: ChildProcess
    private let received: Received

    /// The scheme of `url`: `https` when started with a certificate.
    public let scheme: String

    /// `certificate`: PEM files of a certificate and its key, for HTTPS.
    public init(_ plan: [Answer], hmacKey: String = "", certificate: (cert: String, key: String)? = nil) async throws {
        let planText = JSONValue.array(plan.map(\.json)).serialized()
        scheme = certificate == nil ? "http" : "https"
        process = try ChildProcess(
            ChildCommand(
                ["python3", "-c", Self.script, planText, hmacKey, certificate?.cert ?? "", certificate?.key ?? ""],
                environment: TestIdentity.childEnvironment()),
            options: ChildOptions(input: .stream, stdout: .lines, stderr: .inherit))
        let received = Received()
        let stream = process.stdoutLines
        let port: Int? = await withCheckedContinuation { continuation in
            Task {
                var reported = false
                for await line in stream {
                    guard let object = try? JSONValue.parse(line) else { continue }
                    if !reported, case .int(let port)? = object["port"] {
                        reported = true
                        continuation.resume(returning: Int(port))
                    } else {
                        await received.append(Self.request(object))
                    }
                }
                if !reported { continuation.resume(returning: nil) }
            }
        }
        guard let port else {
            process.end()  // no deinit runs for an object not fully made
            throw ServerError(message: "the test HTTP server did not start")
        }
        self.port = port
        self.received = received
    }

    private static func request(_ object: JSONValue) -> Request {
        var time = 0.0
        switch object["time"] {
        case .double(let seconds)?: time = seconds
        case .int(let seconds)?: time = Double(seconds)
        default: break
        }
        return Request(
            method: object["method"]?.stringValue ?? "", path: object["path"]?.stringValue ?? "",
            headers: strings(object["headers"]), body: object["body"]?.stringValue ?? "",
            hmac: object["hmac"]?.stringValue ?? "", time: time)
    }

    /// Stopped, and gone, before `deinit` returns (the test process may exit right after).
    deinit { process.end(with: SIGTERM) }

    public var url: String { "\(scheme)://127.0.0.1:\(port)/hook" }

    /// The requests so far.
    public var requests: [Request] { get async { await received.requests } }

    /// Waits (at most 20 s) until `count` requests have arrived.
    public func waitForRequests(_ count: Int) async -> [Request] {
        _ = await eventually { await received.requests.count >= count }
        return await received.requests
    }

    private static func strings(_ value: JSONValue?) -> [String: String] {
        guard case .object(let object)? = value else { return [:] }
        var result: [String: String] = [:]
        for (key, value) in object { result[key] = value.plainText }
        return result
    }

    private actor Received {
        var requests: [Request] = []
        func append(_ request: Request) { requests.append(request) }
    }

    struct ServerError: Error { var message: String }

    private static let script = #"""
    import hashlib, hmac, json, os, ssl, sys, threading, time
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    plan = json.loads(sys.argv[1])
    key = sys.argv[2].encode()
    lock = threading.Lock()
    count = [0]
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True
        def answer(self):
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            with lock:
                step = plan[min(count[0], len(plan) - 1)]
                count[0] += 1
                print(json.dumps({"method": self.command, "path": self.path, "time": time.time(),
                    "headers": {k.lower(): v for k, v in self.headers.items()},
                    "body": body.decode("utf-8", "replace"),
                    "hmac": hmac.new(key, body, hashlib.sha256).hexdigest()}), flush=True)
            time.sleep(step["delay"])
            self.send_response(step["status"])
            for name, value in step["headers"].items():
                self.send_header(name, value)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")
        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = answer
        def log_message(self, *args):
            pass
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    if sys.argv[3]:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[3], sys.argv[4])
        server.socket = context.wrap_socket(server.socket, server_side=True)
    print(json.dumps({"port": server.server_address[1]}), flush=True)
    threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
    server.serve_forever()
    """#
}

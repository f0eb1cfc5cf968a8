import FoundationEssentials
import Lifecycle
import OrderedJSON
import SystemKit
import TagRouter

/// The `metrics:` section at work, as a service of the daemon: the HTTP
/// listener (metrics, the live page and its event stream) and the textfile
/// rewritten every `file_interval`. Both report what `observer` knows. On
/// cancellation it ends the event streams, stops the listener and returns.
public final class MetricsService: Service {
    private let settings: MetricsSettings
    private let observer: DaemonObserver
    private let socket: ListeningSocket?
    private let server: HTTPServer?
    private let recent: RecentRecords?

    /// Binds the listener now and loads libmicrohttpd for it, so that a daemon that cannot listen (the port
    /// taken, the address not on this machine, the library not installed) says why and does not start.
    /// Without a listener nothing loads libmicrohttpd.
    /// `namer` names tags for the page when `allow_naming` is on; nil: the daemon has no config file to write.
    public init(_ settings: MetricsSettings, observer: DaemonObserver, namer: (any TagNamer)? = nil) throws(HTTPError) {
        self.settings = settings
        self.observer = observer
        socket = try settings.listen.map { address throws(HTTPError) in try ListeningSocket(address) }
        let recent = socket.map { _ in RecentRecords(observer: observer) }
        self.recent = recent
        guard let socket, let recent else {
            server = nil
            return
        }
        let load = ListenerLoad()
        let off = settings.allowsNaming
            ? "naming tags from the page needs a config file to write; this daemon runs the embedded default"
            : "naming tags from the page is off: set `metrics.allow_naming: true` (docs/http.md \"Naming tags from the page\"), or use `tagrouter tags learn`"
        let naming = NamingEndpoint(namer: settings.allowsNaming ? namer : nil, off: off, address: socket.address)
        let site = Site(observer: observer, token: settings.token.map(BearerToken.init), recent: recent, load: load, origin: OriginCheck(address: socket.address), naming: naming)
        server = try HTTPServer(handle: site.respond, load: load)
    }

    /// Where the listener is bound (the chosen port when the settings said 0); nil without one.
    public var address: ListenAddress? { socket?.address }

    public func run() async throws {
        defer {
            server?.stop()
            recent?.stop()
        }
        if let server, let socket {
            try server.start(socket)
            Log.info("http listener ready", JSONObject([
                "address": .string(socket.address.description), "metrics": .string("http://\(socket.address)/metrics"),
                "page": .string("http://\(socket.address)/"), "token": .bool(settings.token != nil),
            ]))
        }
        guard let path = settings.file else {
            await Latch().wait()
            return
        }
        let file = MetricsFile(path: path)
        var lastProblem: String?
        while !Task.isCancelled {
            do throws(HTTPError) {
                try file.write(DaemonMetrics.text(observer.status))
                if lastProblem != nil { Log.info("metrics file written again", JSONObject(["file": .string(path)])) }
                lastProblem = nil
            } catch {
                if lastProblem != error.description { Log.error(error.description, JSONObject(["file": .string(path)])) }
                lastProblem = error.description
            }
            try? await Task.sleep(for: settings.fileInterval)
        }
    }
}

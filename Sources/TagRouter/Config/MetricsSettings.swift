import FoundationEssentials

/// The `metrics:` section: the HTTP listener for `/metrics` and the live page,
/// the bearer token it then requires, and the file rewritten for
/// node_exporter's textfile collector. Read at start; a reload keeps the listener.
public struct MetricsSettings: Sendable, Equatable {
    /// Where the listener binds; nil: no listener (only the file, when given).
    public var listen: ListenAddress?
    /// The bearer token `/metrics` and `/api/*` require; nil: none is required (loopback only).
    public var token: String?
    /// The textfile; nil: none is written.
    public var file: String?
    public var fileInterval: Duration
    /// The live page may name and rename tags (`allow_naming`): on with a token, off without one unless asked for.
    public var allowsNaming: Bool

    public init(listen: ListenAddress?, token: String? = nil, file: String? = nil, fileInterval: Duration, allowsNaming: Bool? = nil) {
        self.listen = listen
        self.token = token
        self.file = file
        self.fileInterval = fileInterval
        self.allowsNaming = allowsNaming ?? (token != nil)
    }

    static let spec = OptionSpec("Prometheus metrics and the live page (docs/guide/metrics.md)", [
        Option(
            "listen", .string,
            "`host:port` of the HTTP listener serving `/metrics` and the live page, e.g. `127.0.0.1:9464` (port `0`: any free port, logged); an address other than loopback needs `token_file`"),
        Option(
            "token_file", .secretFile,
            "file holding a bearer token that `/metrics` and `/api/*` then require (`Authorization: Bearer <token>`); the page asks for it. A regular file, mode 600, of 16 to 4096 visible ASCII characters (`openssl rand -hex 32`)"),
        Option("file", .string, "also write the metrics to this file, atomically, for node_exporter's textfile collector (name it `*.prom`)"),
        Option("file_interval", .duration, default: "15s", "how often `file` is rewritten"),
        Option(
            "allow_naming", .bool,
            "the live page may name and rename tags, writing the tags file and reloading (docs/http.md \"Naming tags from the page\"). "
                + "Default: on with `token_file` (the token guards it), off without: then every user of this machine could name tags"),
    ])

    /// The settings from a validated `metrics:` section; nil with the problems in `errors` when they are wrong.
    static func load(_ section: ConfigValue, _ errors: inout ConfigErrors) -> MetricsSettings? {
        var listen: ListenAddress?
        if let text = section.optionalString("listen") {
            listen = ListenAddress(text)
            if listen == nil {
                errors.append(contentsOf: section.error("listen", "expected `host:port` with an IP address (`127.0.0.1:9464`, `[::1]:9464`, `0.0.0.0:9464`), got '\(text)'"))
                return nil
            }
        }
        var token: String?
        // A file that is no private regular file: the validator says why (`SecretFile`), once.
        if let path = section.optionalString("token_file"), SecretFile(path: section.context.resolve(path)).problem == nil {
            do throws(TokenFile.Problem) {
                token = try TokenFile(path: section.context.resolve(path)).read()
            } catch {
                errors.append(contentsOf: section.error("token_file", error.message))
                return nil
            }
        }
        if let listen, !listen.isLoopback, !section.has("token_file") {
            errors.append(contentsOf: section.error(
                "listen",
                "\(listen) is reachable from other machines, so it needs `token_file:` (a file holding a bearer token); "
                    + "add one, or listen on 127.0.0.1"))
            return nil
        }
        let fileInterval = section.duration("file_interval")
        if fileInterval < .seconds(1) {
            errors.append(contentsOf: section.error("file_interval", "rewriting the file more often than once a second is not useful; use `1s` or more"))
            return nil
        }
        if listen == nil, !section.has("file") {
            errors.append(ConfigError(mark: section.mark, path: section.path, message: "neither `listen` nor `file` is given: nothing is served", isWarning: true))
        }
        return MetricsSettings(
            listen: listen, token: token, file: section.optionalString("file").map { section.context.resolve($0) },
            fileInterval: fileInterval, allowsNaming: section.optionalBool("allow_naming"))
    }
}

import TagRouter

/// Why a daemon could not be built or stopped running, for its host to report
/// (the command line maps each case to its exit status).
public enum DaemonError: Error, CustomStringConvertible {
    /// A file or path the host gave cannot be used (an unreadable config or events file, a `--control` path).
    case usage(String)
    /// The config does not load: every problem, at its line:col in `file`.
    case config(ConfigErrors, file: String)
    /// Something failed at run time (the metrics listener, a service of the daemon).
    case runtime(String)

    public var description: String {
        switch self {
        case .usage(let message), .runtime(let message): message
        case .config(let errors, let file): "\(file): the config has \(errors.countPhrase)"
        }
    }
}

import TagRouterDaemon

/// A failure the command line reports on stderr as `error: …` with the exit
/// status of its kind (sysexits: 64 usage, 65 bad data, 1 runtime).
enum CLIError: Error {
    /// The arguments are wrong; the usage of the command follows the message.
    case usage(String)
    /// The input (a tag, a message, a config file) is wrong.
    case data(String)
    /// Something failed at run time (no reader, a timeout, a device error).
    case runtime(String)
    /// `status` found the daemon degraded (exit 2); what is wrong was printed already.
    case degraded

    var exitStatus: Int32 {
        switch self {
        case .usage: return 64
        case .data: return 65
        case .runtime: return 1
        case .degraded: return 2
        }
    }

    var message: String {
        switch self {
        case .usage(let message), .data(let message), .runtime(let message): return message
        case .degraded: return "the daemon is degraded (see problems above)"
        }
    }
}

extension CLIError {
    /// The command line's failure for a daemon's: a config's problems are printed on stderr, one per line.
    init(_ error: DaemonError) {
        switch error {
        case .usage(let message): self = .usage(message)
        case .config(let problems, _):
            for line in problems.lines() { printToStderr(line) }
            self = .data(error.description)
        case .runtime(let message): self = .runtime(message)
        }
    }
}

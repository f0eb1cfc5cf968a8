/// What went wrong on the control socket, said so a user can act on it.
public enum ControlError: Error, Sendable, CustomStringConvertible {
    /// No daemon answers at the path (not running, or another `--control`).
    case noDaemon(path: String, reason: String)
    /// The daemon refused this peer, or answered something this client does not speak.
    case refused(String)
    /// The socket could not be made or used.
    case socket(String)
    /// The connection closed or broke mid-conversation.
    case closed(String)

    public var description: String {
        switch self {
        case .noDaemon(let path, let reason):
            return "no tagrouter daemon answers at \(path) (\(reason)); is `tagrouter run` or the tagrouter service running? "
                + "Another socket: --control PATH or \(ControlSocketPath.variable)=PATH"
        case .refused(let message), .socket(let message), .closed(let message): return message
        }
    }
}

import Glibc

/// How a child ended, with what it last wrote and how long it ran.
public struct ChildTermination: Sendable, Equatable, CustomStringConvertible {
    /// The end of the process itself.
    public enum Status: Sendable, Equatable, CustomStringConvertible {
        /// It exited with this status.
        case exited(Int32)
        /// A signal ended it (`SIGTERM` = 15, `SIGKILL` = 9, …).
        case signalled(Int32)

        public var description: String {
            switch self {
            case .exited(let code): return "exit \(code)"
            case .signalled(let signal): return "killed by signal \(signal) (\(String(cString: strsignal(signal))))"
            }
        }
    }

    public var status: Status
    /// True when the timeout expired and the process group was killed.
    public var timedOut: Bool
    /// From start to exit.
    public var duration: Duration
    /// The last bytes of standard output and standard error (empty unless captured).
    public var stdoutTail: [UInt8]
    public var stderrTail: [UInt8]

    public init(status: Status, timedOut: Bool, duration: Duration, stdoutTail: [UInt8] = [], stderrTail: [UInt8] = []) {
        self.status = status
        self.timedOut = timedOut
        self.duration = duration
        self.stdoutTail = stdoutTail
        self.stderrTail = stderrTail
    }

    /// Exit status 0 within the time allowed.
    public var succeeded: Bool { status == .exited(0) && !timedOut }

    /// `exit 0`, `exit 3`, `timed out, killed by signal 15 (Terminated)`.
    public var description: String { timedOut ? "timed out, \(status)" : status.description }

    /// The standard output tail as text (invalid UTF-8 repaired).
    public var stdoutText: String { String(decoding: stdoutTail, as: UTF8.self) }

    /// The standard error tail as text (invalid UTF-8 repaired).
    public var stderrText: String { String(decoding: stderrTail, as: UTF8.self) }
}

/// How a child's standard streams are connected, and how long it may run.
public struct ChildOptions: Sendable {
    /// Standard input.
    public enum Input: Sendable {
        /// `/dev/null`.
        case null
        /// These bytes, then end of file.
        case bytes([UInt8])
        /// A pipe fed with `ChildProcess.write(_:)` until `closeInput()`.
        case stream
    }

    /// Standard output or standard error.
    public enum Output: Sendable {
        /// `/dev/null`.
        case null
        /// The daemon's own stream of the same number.
        case inherit
        /// The daemon's standard error (its log): keeps a child's chatter off the
        /// daemon's standard output, which carries event lines.
        case daemonStandardError
        /// A pipe; the last `tailBytes` are kept for `ChildTermination`.
        case tail
        /// A pipe; every line is yielded on the child's line stream (and the tail is kept).
        case lines
    }

    public var input: Input
    public var stdout: Output
    public var stderr: Output
    /// When it expires, the whole process group gets `SIGTERM`, then `SIGKILL` after `killGrace`.
    public var timeout: Duration?
    /// How long the group has between `SIGTERM` and `SIGKILL`.
    public var killGrace: Duration
    /// How many trailing bytes of each captured stream to keep.
    public var tailBytes: Int
    /// Longest line yielded by `.lines`; a longer one is cut there (the rest of it is dropped).
    public var maxLineBytes: Int
    /// How many bytes of `.lines` may wait unread, per stream; beyond it the pipe
    /// is not read until the consumer takes lines (the child blocks in `write`).
    public var bufferedBytes: Int
    /// When the child exits, by itself or terminated, `SIGKILL` its whole process
    /// group, so the background children it started do not outlive it (a
    /// long-lived plugin's helpers), and every process that carries its mark
    /// (`DescendantMark`): the ones that left the group with `setsid` too.
    /// Off for commands whose background jobs are wanted.
    public var killsGroupOnExit: Bool

    public init(
        input: Input = .null, stdout: Output = .tail, stderr: Output = .tail, timeout: Duration? = nil,
        killGrace: Duration = .seconds(2), tailBytes: Int = 4096, maxLineBytes: Int = 1 << 20, bufferedBytes: Int = 4 << 20,
        killsGroupOnExit: Bool = false
    ) {
        self.input = input
        self.stdout = stdout
        self.stderr = stderr
        self.timeout = timeout
        self.killGrace = killGrace
        self.tailBytes = tailBytes
        self.maxLineBytes = maxLineBytes
        self.bufferedBytes = bufferedBytes
        self.killsGroupOnExit = killsGroupOnExit
    }
}

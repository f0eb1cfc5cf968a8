@preconcurrency import Glibc
import Synchronization

/// Signals as an async sequence, caught from the moment `stream(_:)` returns.
///
/// Each signal gets its handler with `sigaction` before the call returns; the
/// handler only writes the signal's number into a pipe, and a dedicated thread
/// turns the pipe's bytes into the stream's elements. So a SIGTERM that arrives
/// while the daemon is still starting waits in the pipe until someone reads the
/// stream. (A `DispatchSource` registers its handler later, on dispatch's own
/// thread; a signal sent in between was ignored, and the daemon never stopped.)
/// When the stream's consumer goes away, its signals are ignored from then on.
public enum Signals {
    /// The signals in `numbers`, in the order they arrive; one stream at a time
    /// (a second call takes the signals over from the first).
    public static func stream(_ numbers: [Int32]) -> AsyncStream<Int32> {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        let pipe = SignalPipe.shared
        pipe.consumer.withLock { $0 = continuation }
        for number in numbers {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = forwardSignal
            action.sa_flags = SA_RESTART
            sigemptyset(&action.sa_mask)
            sigaction(number, &action, nil)
        }
        continuation.onTermination = { _ in
            for number in numbers { signal(number, SIG_IGN) }
        }
        return stream
    }
}

/// Where the handler writes: the pipe's write end, set once before any handler is installed.
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1

/// The signal handler: one `write` of the signal's number, which is all a handler may safely do.
private func forwardSignal(_ number: Int32) {
    let savedErrno = errno
    var byte = UInt8(truncatingIfNeeded: number)
    _ = write(signalPipeWriteEnd, &byte, 1)
    errno = savedErrno
}

/// The pipe between the handler and the stream, and the thread that reads it; one per process.
private final class SignalPipe: Sendable {
    static let shared = SignalPipe()

    /// The stream that receives the signals read from the pipe.
    let consumer = Mutex<AsyncStream<Int32>.Continuation?>(nil)

    private init() {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0, fcntl(ends[0], F_SETFD, FD_CLOEXEC) == 0, fcntl(ends[1], F_SETFD, FD_CLOEXEC) == 0 else {
            fatalError("cannot create the pipe signals are delivered through: \(String(cString: strerror(errno)))")
        }
        signalPipeWriteEnd = ends[1]
        let readEnd = ends[0]
        DedicatedThread.start(name: "signals") { [self] in
            var byte: UInt8 = 0
            while true {
                let count = read(readEnd, &byte, 1)
                if count == 1 {
                    _ = consumer.withLock { $0?.yield(Int32(byte)) }
                } else if count < 0, errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }
}

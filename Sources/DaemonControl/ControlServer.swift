@preconcurrency import Glibc
import FoundationEssentials
import Synchronization
import TagCore
import TagRouter

/// The daemon's control socket as a service: a thread blocked in `accept`,
/// one thread per connection (each peer checked with `SO_PEERCRED` first),
/// answering `status`, `events` and `reload` from the observer and the
/// daemon's reload, and `write` and `read` through the daemon's readers. On cancellation it hangs up on every client, joins the
/// threads and removes the socket file.
public final class ControlServer: Service {
    public let path: String
    private let listener: UnixSocket
    private let sessionContext: ControlSession.Context
    private let connections = Mutex<(open: Set<Int32>, threads: Int)>(([], 0))
    private let allEnded = Latch()
    private let closing = Atomic<Bool>(false)

    /// Listens at `path` (mode 0660, its folder made 0750 when missing) now, so
    /// a daemon that cannot serve control fails before it starts.
    /// `jobs`: the readers `write` and `read` go to (nil: the daemon has none, as with `--events-from`).
    public init(
        path: String, observer: DaemonObserver, policy: PeerPolicy = PeerPolicy(), jobs: (any TagJobRunner)? = nil,
        reload: @escaping @Sendable () -> ReloadOutcome
    ) throws(ControlError) {
        try ControlSocketPath.prepareFolder(of: path)
        self.path = path
        listener = try UnixSocket.listen(at: path, mode: 0o660)
        sessionContext = ControlSession.Context(observer: observer, policy: policy, jobs: jobs, reload: reload)
    }

    public func run() async {
        startThread { $0.acceptLoop() }
        await Latch().wait()
        closing.store(true, ordering: .releasing)
        listener.shutDown()
        connections.withLock { state in
            for fd in state.open { shutdown(fd, Int32(SHUT_RDWR)) }
        }
        await allEnded.waitIgnoringCancellation()
        listener.close()
        unlink(path)
    }

    /// Runs `body` on a new thread counted until it ends.
    private func startThread(_ body: @escaping @Sendable (ControlServer) -> Void) {
        connections.withLock { $0.threads += 1 }
        DedicatedThread.start(name: "control socket") { [self] in
            body(self)
            let left = connections.withLock { state in
                state.threads -= 1
                return state.threads
            }
            if left == 0 { allEnded.open() }
        }
    }

    private var isClosing: Bool { closing.load(ordering: .acquiring) }

    private func acceptLoop() {
        while !isClosing {
            let fd = accept(listener.fd, nil, nil)
            guard fd >= 0 else {
                if errno == EINTR || errno == ECONNABORTED { continue }
                if !isClosing { Log.error("control socket stopped accepting", JSONObject(["path": .string(path), "error": .string(String(cString: strerror(errno)))])) }
                return
            }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)  // not inherited by shell or exec actions
            let admitted = connections.withLock { state in
                guard !isClosing else { return false }
                state.open.insert(fd)
                return true
            }
            guard admitted else {
                close(fd)
                return
            }
            let context = sessionContext
            startThread { server in
                ControlSession(socket: UnixSocket(fd: fd), context: context, closing: { server.isClosing }).serve()
                server.connections.withLock { _ = $0.open.remove(fd) }
                close(fd)
            }
        }
    }
}

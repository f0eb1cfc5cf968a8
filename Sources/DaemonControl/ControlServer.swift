@preconcurrency import Glibc
import FoundationEssentials
import Lifecycle
import OrderedJSON
import Synchronization
import SystemKit
import TagCore
import TagRouter

/// The daemon's control socket as a service: a thread blocked in `accept`,
/// one thread per connection up to `ControlLimits` (each peer checked with `SO_PEERCRED` first),
/// answering `status`, `events` and `reload` from the observer and the
/// daemon's reload, `write` and `read` through the daemon's readers, and `name`, `rename` and `forget`
/// through the daemon's tags. On cancellation it hangs up on every client, joins the
/// threads and removes the socket file.
public final class ControlServer: Service {
    public let path: String
    private let listener: UnixSocket
    private let sessionContext: ControlSession.Context
    private let limits: ControlLimits
    private let connections = Mutex<(open: Set<Int32>, threads: Int, full: Bool)>(([], 0, false))
    private let allEnded = Latch()
    private let closing = Atomic<Bool>(false)

    /// Listens at `path` (mode 0660, its folder made 0750 when missing) now, so
    /// a daemon that cannot serve control fails before it starts.
    /// `jobs`: the readers `write` and `read` go to (nil: the daemon has none, as with `--events-from`);
    /// `tagNames`: what `name`, `rename` and `forget` change (nil: the config is no file).
    public init(
        path: String, observer: DaemonObserver, policy: PeerPolicy = PeerPolicy(), limits: ControlLimits = ControlLimits(),
        jobs: (any TagJobRunner)? = nil, tagNames: TagNamesEditor? = nil, reload: @escaping @Sendable () -> ReloadOutcome
    ) throws(ControlError) {
        try ControlSocketPath.prepareFolder(of: path)
        self.path = path
        self.limits = limits
        listener = try UnixSocket.listen(at: path, mode: 0o660)
        sessionContext = ControlSession.Context(observer: observer, policy: policy, limits: limits, jobs: jobs, reload: reload, tagNames: tagNames)
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
            let socket = UnixSocket(fd: fd)
            socket.setSendTimeout(limits.idle)  // a client that stops reading cannot hold its thread
            let (admitted, newlyFull) = connections.withLock { state -> (Bool, Bool) in
                guard !isClosing else { return (false, false) }
                guard state.open.count < limits.connections else {
                    defer { state.full = true }
                    return (false, !state.full)
                }
                state.full = false
                state.open.insert(fd)
                return (true, false)
            }
            guard admitted else {
                if newlyFull {
                    Log.warning("control socket full: refusing new clients", JSONObject(["path": .string(path), "connections": .int(Int64(limits.connections))]))
                }
                if !isClosing {
                    socket.write(JSONValue.object(JSONObject(["error": .string("busy: \(limits.connections) control connections are open, the most this daemon serves; try again later")])).serialized() + "\n")
                }
                close(fd)
                if isClosing { return }
                continue
            }
            let context = sessionContext
            startThread { server in
                ControlSession(socket: socket, context: context, closing: { server.isClosing }).serve()
                server.connections.withLock { _ = $0.open.remove(fd) }
                close(fd)
            }
        }
    }
}

@preconcurrency import Glibc
import Synchronization

/// Keeps the listener's connections from starving `/metrics`. A connection that
/// is not being answered — its request headers still trickling in, or idle
/// between requests — is *waiting*. At most `waitingLimit` wait at once, and at
/// most `waitingPerAddress` from one other machine's address: past either, the
/// oldest waiting connection (of that address, or of all) is shut down, so a new
/// client always gets in. A request being answered is never cut. Loopback
/// clients have no address limit of their own (a local user has all of
/// 127.0.0.0/8 to come from), only the overall one.
final class ConnectionGuard: Sendable {
    private struct Connection {
        let fd: Int32
        let address: String?
        /// When it began waiting (a tick of `State.clock`); nil while a request is answered, or once shut down.
        var waitingSince: UInt64?
    }

    private struct State {
        var connections: [UInt: Connection] = [:]
        var clock: UInt64 = 0
    }

    let waitingLimit: Int
    let waitingPerAddress: Int
    private let load: ListenerLoad
    private let state = Mutex(State())

    /// `load` counts the connections shut down.
    init(waitingLimit: Int, waitingPerAddress: Int, load: ListenerLoad) {
        self.waitingLimit = waitingLimit
        self.waitingPerAddress = waitingPerAddress
        self.load = load
    }

    /// A connection `id` was accepted on socket `fd` from `address` (nil: loopback); it waits for its first request.
    func opened(_ id: UInt, fd: Int32, address: String?) {
        state.withLock { state in
            state.clock += 1
            state.connections[id] = Connection(fd: fd, address: address, waitingSince: state.clock)
            if let address {
                while Self.waitingCount(state, from: address) > waitingPerAddress { shutOldest(&state, from: address) }
            }
            while Self.waitingCount(state, from: nil) > waitingLimit { shutOldest(&state, from: nil) }
        }
    }

    /// Connection `id` sent a whole request: it is answered, not waiting.
    func requestStarted(_ id: UInt) {
        state.withLock { $0.connections[id]?.waitingSince = nil }
    }

    /// The request on connection `id` was answered (or abandoned): it waits for the next one.
    func requestEnded(_ id: UInt) {
        state.withLock { state in
            state.clock += 1
            state.connections[id]?.waitingSince = state.clock
        }
    }

    /// Connection `id` is closed (its socket is closed after this returns, so it is never shut down once reused).
    func closed(_ id: UInt) {
        state.withLock { _ = $0.connections.removeValue(forKey: id) }
    }

    private static func waitingCount(_ state: State, from address: String?) -> Int {
        state.connections.values.filter { $0.waitingSince != nil && (address == nil || $0.address == address) }.count
    }

    private func shutOldest(_ state: inout State, from address: String?) {
        let candidates = state.connections.compactMap { id, connection in
            connection.waitingSince.flatMap { since in address == nil || connection.address == address ? (id, connection.fd, since) : nil }
        }
        guard let (id, fd, _) = candidates.min(by: { $0.2 < $1.2 }) else { return }
        _ = shutdown(fd, Int32(SHUT_RDWR))
        state.connections[id]?.waitingSince = nil
        load.connectionShutDown()
    }
}

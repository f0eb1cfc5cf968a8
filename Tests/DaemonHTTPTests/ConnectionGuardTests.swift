@preconcurrency import Glibc
import Testing

@testable import DaemonHTTP

/// Which waiting connections the listener shuts down to let a new client in, on real sockets:
/// a shut-down connection reads end-of-file at the client's end.
@Suite struct ConnectionGuardTests {
    /// A connected socket pair: the server's end (watched by the guard) and the client's.
    final class Pair {
        let server: Int32
        let client: Int32

        init() {
            var fds: [Int32] = [0, 0]
            _ = socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds)
            (server, client) = (fds[0], fds[1])
        }

        deinit {
            close(server)
            close(client)
        }

        /// True when the server's end was shut down: the client reads end-of-file at once.
        var isShutDown: Bool {
            var poller = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 0) > 0 else { return false }
            var byte: UInt8 = 0
            return recv(client, &byte, 1, Int32(MSG_DONTWAIT)) == 0
        }
    }

    @Test func pastTheLimitTheOldestWaitingConnectionIsShutDown() {
        let load = ListenerLoad()
        let limits = ConnectionGuard(waitingLimit: 3, waitingPerAddress: 2, load: load)
        let pairs = (0..<5).map { _ in Pair() }
        for (index, pair) in pairs.prefix(3).enumerated() { limits.opened(UInt(index), fd: pair.server, address: nil) }
        #expect(pairs.allSatisfy { !$0.isShutDown })
        // Connection 0 is answering a request: it is not waiting and is never cut; 1 is then the oldest waiting.
        limits.requestStarted(0)
        limits.opened(3, fd: pairs[3].server, address: nil)
        #expect(pairs.map(\.isShutDown) == [false, false, false, false, false])
        limits.opened(4, fd: pairs[4].server, address: nil)
        #expect(pairs.map(\.isShutDown) == [false, true, false, false, false])
        // Answered, 0 waits again, since now: with a sixth, 2 and 3 are the oldest of five waiting.
        limits.requestEnded(0)
        let next = Pair()
        limits.opened(5, fd: next.server, address: nil)
        #expect(pairs.map(\.isShutDown) == [false, true, true, true, false])
        #expect(!next.isShutDown)
        #expect(load.connectionsShutDown == 3)
    }

    @Test func oneAddressGivesWayToItselfNotToOthers() {
        let limits = ConnectionGuard(waitingLimit: 10, waitingPerAddress: 2, load: ListenerLoad())
        let neighbour = Pair()
        limits.opened(0, fd: neighbour.server, address: "192.0.2.7")
        let flood = (1...4).map { _ in Pair() }
        for (index, pair) in flood.enumerated() { limits.opened(UInt(index + 1), fd: pair.server, address: "192.0.2.66") }
        #expect(flood.map(\.isShutDown) == [true, true, false, false])
        #expect(!neighbour.isShutDown)
        // Loopback clients have no address limit of their own.
        let local = (0..<5).map { _ in Pair() }
        for (index, pair) in local.enumerated() { limits.opened(UInt(index + 10), fd: pair.server, address: nil) }
        #expect(local.allSatisfy { !$0.isShutDown })
    }

    @Test func aClosedConnectionIsForgotten() {
        let load = ListenerLoad()
        let limits = ConnectionGuard(waitingLimit: 1, waitingPerAddress: 1, load: load)
        let first = Pair()
        limits.opened(1, fd: first.server, address: nil)
        limits.closed(1)
        let second = Pair()
        limits.opened(2, fd: second.server, address: nil)
        #expect(!first.isShutDown)
        #expect(!second.isShutDown)
        #expect(load.connectionsShutDown == 0)
    }
}

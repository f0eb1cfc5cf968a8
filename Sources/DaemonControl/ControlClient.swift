@preconcurrency import Glibc
import OrderedJSON
import SystemKit

/// A connection to a running daemon's control socket, for the `status`,
/// `events` and `reload` commands: checks that nobody but the daemon's user could
/// have put the socket there and that the kernel says the peer is that user (or
/// root, or this user) before sending anything, checks the daemon's hello, greets
/// back, then sends requests and reads replies (docs/control.md).
public struct ControlClient {
    private var lines: SocketLines
    private let socket: UnixSocket
    /// The daemon's hello: `version`, `pid`, `config`.
    public let hello: JSONValue

    /// Connects to `path`; `name` says who asks (`tagrouter status`). Replies
    /// are awaited up to `timeout` milliseconds (-1: for ever).
    public init(path: String, name: String, timeout: Int32 = 10_000) throws(ControlError) {
        let folder = ControlSocketPath.folder(of: path)
        guard ControlSocketPath.exists(folder) else { throw .noDaemon(path: path, reason: "\(folder) does not exist") }
        let owner: uid_t
        do {
            owner = try RuntimeDirectory.trustedOwner(of: folder)
        } catch {
            throw .refused("not talking to \(path): \(error); remove it if you did not make it, or use --control PATH")
        }
        socket = try UnixSocket.connect(to: path)
        guard let peer = PeerCredentials(socket: socket.fd, groups: false) else {
            socket.close()
            throw .refused("not talking to \(path): the kernel did not say who listens there (SO_PEERCRED failed)")
        }
        guard peer.uid == 0 || peer.uid == geteuid() || peer.uid == owner else {
            socket.close()
            throw .refused("not talking to \(path): it is served by uid \(peer.uid) (pid \(peer.pid)), not root, you or the folder's owner (uid \(owner))")
        }
        lines = SocketLines(socket)
        guard let line = lines.next(timeout: timeout) else {
            socket.close()
            throw .closed("the daemon at \(path) hung up before saying hello")
        }
        guard let hello = try? JSONValue.parse(line) else {
            socket.close()
            throw .refused("\(path) does not speak the tagrouter control protocol: \(line.prefix(80))")
        }
        if let error = hello["error"]?.stringValue {
            socket.close()
            throw .refused("the daemon at \(path) \(error)")
        }
        guard hello["protocol"] == .int(ControlProtocol.version) else {
            socket.close()
            throw .refused("the daemon at \(path) speaks control protocol \(hello["protocol"]?.serialized() ?? "?"), this tool \(ControlProtocol.version): use the same tagrouter version")
        }
        self.hello = hello
        socket.write(JSONValue.object(JSONObject(["protocol": .int(ControlProtocol.version), "client": .string(name)])).serialized() + "\n")
    }

    /// Sends `request` (`{"command":…}`) and returns the reply.
    public mutating func request(_ request: JSONObject, timeout: Int32 = 60_000) throws(ControlError) -> JSONValue {
        guard socket.write(JSONValue.object(request).serialized() + "\n") else { throw .closed("the daemon hung up") }
        guard let reply = next(timeout: timeout) else { throw .closed("the daemon hung up without answering") }
        return reply
    }

    /// The next line the daemon sends, as JSON; nil when it hangs up (or after `timeout` ms).
    public mutating func next(timeout: Int32 = -1) -> JSONValue? {
        while let line = lines.next(timeout: timeout) {
            if let value = try? JSONValue.parse(line) { return value }
        }
        return nil
    }

    public func close() { socket.close() }
}

import TagCore

/// A connection to a running daemon's control socket, for the `status`,
/// `events` and `reload` commands: connects, checks the daemon's hello, greets
/// back, then sends requests and reads replies (docs/control.md).
public struct ControlClient {
    private var lines: SocketLines
    private let socket: UnixSocket
    /// The daemon's hello: `version`, `pid`.
    public let hello: JSONValue

    /// Connects to `path`; `name` says who asks (`tagrouter status`). Replies
    /// are awaited up to `timeout` milliseconds (-1: for ever).
    public init(path: String, name: String, timeout: Int32 = 10_000) throws(ControlError) {
        socket = try UnixSocket.connect(to: path)
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

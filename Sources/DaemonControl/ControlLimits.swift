/// How much of the daemon control clients may hold: connections open at once
/// (each is a thread) and how long one may stay silent before it is closed. A
/// client past the cap gets `{"error":"busy: …"}` and is hung up on at once; a
/// watcher (`events`) is not idle while the daemon sends, but one that stops
/// reading is cut off after the idle time too.
public struct ControlLimits: Sendable {
    public var connections: Int
    public var idle: Duration

    public init(connections: Int = 64, idle: Duration = .seconds(60)) {
        self.connections = connections
        self.idle = idle
    }

    var idleMilliseconds: Int32 { Int32(clamping: idle.components.seconds * 1000 + idle.components.attoseconds / 1_000_000_000_000_000) }
}

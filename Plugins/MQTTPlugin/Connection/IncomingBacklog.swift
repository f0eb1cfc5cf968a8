import Synchronization

/// The messages the connection's loop thread read from the socket and its
/// consumer has not taken yet from `MQTTConnection.incoming`, in number and in
/// bytes: the bound between the socket and the consumer.
///
/// Once `messageLimit` messages or `byteLimit` bytes wait, the loop thread stops
/// reading the socket (it still writes and keeps alive) until the consumer has
/// taken them down to half of both; the broker and TCP hold the rest meanwhile
/// (docs/security.md, "The broker"). One read of libmosquitto may bring a few
/// more messages past the limit (see `MQTTConnection.incomingMessageLimit`).
final class IncomingBacklog: Sendable {
    /// A snapshot of the counts.
    struct Counts: Sendable, Equatable {
        /// Read and not yet taken.
        var messages = 0
        var bytes = 0
        /// The most that ever waited at once.
        var peakMessages = 0
        var peakBytes = 0
        /// How often the loop thread stopped reading because the backlog was full.
        var holdBacks = 0
        /// Whether it is stopped now (until the backlog is down to half).
        var holding = false
    }

    let messageLimit: Int
    let byteLimit: Int
    private let counts = Mutex(Counts())
    private let wake: WakePipe

    init(messageLimit: Int, byteLimit: Int, wake: WakePipe) {
        self.messageLimit = messageLimit
        self.byteLimit = byteLimit
        self.wake = wake
    }

    var snapshot: Counts { counts.withLock { $0 } }

    /// The loop thread handed `message` to the consumer.
    func handedOver(_ message: MQTTMessage) {
        let bytes = message.heldBytes
        counts.withLock { counts in
            counts.messages += 1
            counts.bytes += bytes
            counts.peakMessages = max(counts.peakMessages, counts.messages)
            counts.peakBytes = max(counts.peakBytes, counts.bytes)
        }
    }

    /// The consumer took `message`; wakes the loop thread when that brings a full backlog down to half.
    func taken(_ message: MQTTMessage) {
        let bytes = message.heldBytes
        let resume = counts.withLock { counts -> Bool in
            counts.messages -= 1
            counts.bytes -= bytes
            return counts.holding && isDownToHalf(counts)
        }
        if resume { wake.signal() }
    }

    /// Whether the loop thread may read the socket now: not while the backlog is
    /// full, nor after that until it is down to half. Counts each stop.
    func mayRead() -> Bool {
        counts.withLock { counts -> Bool in
            if counts.holding {
                guard isDownToHalf(counts) else { return false }
                counts.holding = false
            }
            guard counts.messages >= messageLimit || counts.bytes >= byteLimit else { return true }
            counts.holding = true
            counts.holdBacks += 1
            return false
        }
    }

    private func isDownToHalf(_ counts: Counts) -> Bool {
        counts.messages <= messageLimit / 2 && counts.bytes <= byteLimit / 2
    }
}

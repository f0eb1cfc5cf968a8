import FoundationEssentials
import Glibc
import Lifecycle
import OrderedJSON
import Synchronization
import SystemKit

/// Incoming messages in groups (`settings.acknowledgeWhenAccepted`): handed over together, acknowledged together once
/// the consumer accepted each one.
extension MQTTConnection {
    /// Hands `messages` to the consumer and holds the loop thread — libmosquitto
    /// reads and writes nothing meanwhile, so their PUBACKs stay queued — until
    /// the consumer accepted every one, also through a `stop()` (the PUBACKs then
    /// go out with the DISCONNECT), or until `abandon()` (they never go out).
    func handOverAndWait(_ messages: [MQTTMessage]) {
        guard !messages.isEmpty else { return }
        receivedCount.add(messages.count, ordering: .relaxed)
        groupCount.add(1, ordering: .relaxed)
        let unaccepted = Countdown(messages.count)
        let wake = wake
        for message in messages {
            incomingBacklog.handedOver(message)
            incomingInput.yield(MQTTIncoming(message: message, acceptance: Acceptance {
                if unaccepted.countDown() { wake.signal() }
            }))
        }
        while !unaccepted.isDone, !isAbandoning {
            wake.wait(alongside: -1, events: 0, timeoutMilliseconds: 1000)
        }
    }
}

/// The messages of a group the consumer has not accepted yet, counted down from any thread.
private final class Countdown: Sendable {
    private let left: Atomic<Int>

    init(_ count: Int) { left = Atomic(count) }

    /// One more accepted; true for the last.
    func countDown() -> Bool { left.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 }

    var isDone: Bool { left.load(ordering: .acquiring) <= 0 }
}

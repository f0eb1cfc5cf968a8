import Synchronization
import TagKit

/// The read counter each simulated NTAG 424 DNA had when a request last changed
/// the field, by UID: a tag taken off and placed again without a `counter` goes
/// on from there, as a real tag keeps its counter (else its next read would
/// repeat a counter already seen, and be refused as a replay).
final class ReadCounterMemory: Sendable {
    private let counters = Mutex<[[UInt8]: Int]>([:])

    /// Notes the counters of the NTAG 424 DNA tags among `tags`.
    func remember(_ tags: [any SimulatedTag]) {
        counters.withLock { counters in
            for case let tag as NTAG424DNATag in tags { counters[tag.activation.uid] = tag.readCounter }
        }
    }

    /// The counter last noted for `uid`.
    func counter(uid: [UInt8]) -> Int? { counters.withLock { $0[uid] } }
}

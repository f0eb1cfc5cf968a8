import Synchronization

/// One MQTT write request at a time per reader: a request takes its reader's
/// slot until it is answered, and another for the same reader meanwhile is
/// refused `busy` without reaching the reader — so a flood of requests holds
/// no memory and claims no more than one tap.
final class WriteSlots: Sendable {
    private let taken = Mutex<Set<String>>([])

    /// Takes `reader`'s slot; false when a request already holds it.
    func take(_ reader: String) -> Bool { taken.withLock { $0.insert(reader).inserted } }

    /// Gives `reader`'s slot back.
    func release(_ reader: String) { _ = taken.withLock { $0.remove(reader) } }

    /// The readers with a request waiting (the tests watch it).
    var busyReaders: Set<String> { taken.withLock { $0 } }
}

import Synchronization

/// How many URIs were refused, shared by every `open` action of a config.
final class RefusalCounter: Sendable {
    private let value = Atomic(0)

    func increment() { value.add(1, ordering: .relaxed) }

    var count: Int { value.load(ordering: .relaxed) }
}

import Synchronization

/// A `TagTransport` straight to an in-memory tag, for driver tests: no reader in
/// between. `removedAfter` makes the tag leave the field after that many
/// exchanges, so every later exchange throws `.tagRemoved`.
public final class ModelTransport<Tag: SimulatedTag>: TagTransport, Sendable {
    private struct State {
        var tag: Tag
        var exchanges = 0
        var removedAfter: Int?
    }

    private let state: Mutex<State>

    public init(_ tag: Tag, removedAfter: Int? = nil) {
        state = Mutex(State(tag: tag, removedAfter: removedAfter))
    }

    /// The tag as it is now (with every write applied).
    public var tag: Tag { state.withLock { $0.tag } }

    /// How many exchanges were attempted so far.
    public var exchanges: Int { state.withLock { $0.exchanges } }

    public func transceive(_ command: [UInt8]) throws(TagTransportError) -> [UInt8] {
        try state.withLock { (state: inout State) throws(TagTransportError) -> [UInt8] in
            state.exchanges += 1
            if let limit = state.removedAfter, state.exchanges > limit { throw .tagRemoved }
            return try state.tag.exchange(command)
        }
    }
}

import TagKit

/// A simulated reader's field that tags are placed in and taken out of — the
/// PN532 simulator's or the vpcd card's. The control socket works on either.
public protocol SimulatedField: AnyObject, Sendable {
    /// Runs `body` on the field under its lock.
    func withField<T>(_ body: (inout RFField) -> T) -> T
}

extension SimulatedField {
    /// Puts `tag` in the field (replacing a tag with the same UID).
    public func place(_ tag: any SimulatedTag) { place([tag]) }

    /// Puts several tags in the field at the same instant: a poll sees all of them.
    public func place(_ tags: [any SimulatedTag]) {
        withField { field in
            for tag in tags { field.place(tag) }
        }
    }

    /// Puts `tag` in the field to answer `exchanges` commands and then leave, in one step: a tag pulled
    /// away in the middle of its read however soon the reader finds it.
    public func place(_ tag: any SimulatedTag, leavingAfterExchanges exchanges: Int) {
        withField { field in
            field.place(tag)
            _ = field.remove(uid: tag.activation.uid, afterExchanges: exchanges)
        }
    }

    /// Takes the tag with `uid` out of the field; false when it was not there.
    @discardableResult
    public func remove(uid: [UInt8]) -> Bool { withField { $0.remove(uid: uid) } }

    /// Lets the tag with `uid` answer `exchanges` more commands, then takes it out:
    /// a tag pulled away in the middle of a read or write. False when it is not there.
    @discardableResult
    public func remove(uid: [UInt8], afterExchanges exchanges: Int) -> Bool {
        withField { $0.remove(uid: uid, afterExchanges: exchanges) }
    }

    /// Empties the field.
    public func removeAll() { withField { $0.removeAll() } }

    /// Empties the field and puts `tags` in it, in one step (a tag swapped for another).
    public func replaceAll(with tags: [any SimulatedTag]) {
        withField { field in
            field.removeAll()
            for tag in tags { field.place(tag) }
        }
    }

    /// The tags in the field now, with everything written to them.
    public var tags: [any SimulatedTag] { withField { $0.entries.map(\.tag) } }

    /// The tag with `uid`, if it is in the field.
    public func tag(uid: [UInt8]) -> (any SimulatedTag)? { tags.first { $0.activation.uid == uid } }
}

import TagKit

/// The tags in the simulated reader's field, in the order they were placed
/// (public only as the type `SimulatedField.withField` hands over; its members are internal).
/// A tag halted by the reader (HLTA, InDeselect, InRelease) stays in the field
/// but does not answer activation until the field is switched off and on, or
/// an InAutoPoll cycles it.
public struct RFField: Sendable {
    struct Entry: Sendable {
        let id: Int
        var tag: any SimulatedTag
        var halted = false
        /// Exchanges the tag still answers before it leaves the field; nil: it stays.
        var leavesAfter: Int?
    }

    var entries: [Entry] = []
    private var nextID = 1

    /// Puts `tag` in the field; a tag already there with the same UID is replaced.
    mutating func place(_ tag: any SimulatedTag) {
        entries.removeAll { $0.tag.activation.uid == tag.activation.uid }
        entries.append(Entry(id: nextID, tag: tag))
        nextID += 1
    }

    /// Takes the tag with `uid` out; false when none was there.
    mutating func remove(uid: [UInt8]) -> Bool {
        let before = entries.count
        entries.removeAll { $0.tag.activation.uid == uid }
        return entries.count != before
    }

    mutating func removeAll() { entries.removeAll() }

    /// Lets the tag with `uid` answer `exchanges` more commands, then takes it out
    /// (a tag pulled away in the middle of a read); false when it is not there.
    mutating func remove(uid: [UInt8], afterExchanges exchanges: Int) -> Bool {
        guard let index = entries.firstIndex(where: { $0.tag.activation.uid == uid }) else { return false }
        entries[index].leavesAfter = exchanges
        if exchanges <= 0 { entries.remove(at: index) }
        return true
    }

    /// The tag at `index` answered one exchange; a leaving tag that has given its last answer goes.
    mutating func answered(at index: Int) {
        guard let remaining = entries[index].leavesAfter else { return }
        if remaining <= 1 {
            entries.remove(at: index)
        } else {
            entries[index].leavesAfter = remaining - 1
        }
    }

    func index(of id: Int) -> Int? { entries.firstIndex { $0.id == id } }

    /// The field dropped: every tag powers down and forgets its state.
    mutating func resetAll() {
        for index in entries.indices {
            entries[index].halted = false
            entries[index].tag.reset()
        }
    }

    /// HLTA / DESELECT: the tag stops answering activation. FeliCa and Jewel have no halt state.
    mutating func halt(id: Int) {
        guard let index = index(of: id) else { return }
        let activation = entries[index].tag.activation
        entries[index].halted = activation.felica == nil && !activation.isJewel
        entries[index].tag.reset()
    }
}

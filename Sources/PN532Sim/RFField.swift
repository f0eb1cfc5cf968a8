import TagKit

/// The tags in the simulated reader's field, in the order they were placed.
/// A tag halted by the reader (HLTA, InDeselect, InRelease) stays in the field
/// but does not answer activation until the field is switched off and on, or
/// an InAutoPoll cycles it.
struct RFField: Sendable {
    struct Entry: Sendable {
        let id: Int
        var tag: any SimulatedTag
        var halted = false
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

    func index(of id: Int) -> Int? { entries.firstIndex { $0.id == id } }

    /// The field dropped: every tag powers down and forgets its state.
    mutating func resetAll() {
        for index in entries.indices {
            entries[index].halted = false
            entries[index].tag.reset()
        }
    }

    /// HLTA / DESELECT: the tag stops answering activation. FeliCa has no halt state.
    mutating func halt(id: Int) {
        guard let index = index(of: id) else { return }
        entries[index].halted = entries[index].tag.activation.felica == nil
        entries[index].tag.reset()
    }
}

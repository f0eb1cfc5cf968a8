import TagCore

/// The events of one reader's tag presences after their arrival: keeps each
/// reported arrival so that `tag.held`, `tag.tapped` and `tag.removed` carry its
/// tag, tag id and name (a removal has no URI to work the HA tag id out from).
/// Shared by the libnfc and PC/SC scan loops.
package struct PresenceEvents {
    package let reader: String
    private var arrivals: [TagUID: TagEvent] = [:]
    /// Tags taken by a read or write job on arrival: none of their events is reported.
    private var claimed: Set<TagUID> = []

    /// `adopting`: arrivals a previous reader of the device reported and did not remove.
    package init(reader: String, adopting present: [TagEvent] = []) {
        self.reader = reader
        for arrival in present {
            if let uid = arrival.tag?.uid { arrivals[uid] = arrival }
        }
    }

    /// Keeps `arrival` for the events after it, and returns it.
    package mutating func arrived(_ arrival: TagEvent) -> TagEvent {
        if let uid = arrival.tag?.uid { arrivals[uid] = arrival }
        return arrival
    }

    /// Keeps the presence of `uid`, whose arrival a job took, out of the events.
    package mutating func claim(_ uid: TagUID) {
        claimed.insert(uid)
    }

    /// The event for a hold, tap or removal decision (nil for an arrival, which the
    /// scan loop reads itself, and for a claimed tag); a removal ends the presence.
    package mutating func event(for decision: ScanModel.Decision) -> TagEvent? {
        switch decision {
        case .arrive: return nil
        case .hold(let uid) where claimed.contains(uid), .tap(let uid) where claimed.contains(uid): return nil
        case .remove(let uid, _) where claimed.contains(uid):
            claimed.remove(uid)
            return nil
        case .hold(let uid): return following(uid, .tagHeld)
        case .tap(let uid): return following(uid, .tagTapped)
        case .remove(let uid, let dwell):
            defer { arrivals[uid] = nil }
            return following(uid, .tagRemoved, dwellMs: Int(dwell.milliseconds))
        }
    }

    private func following(_ uid: TagUID, _ kind: TagEvent.Kind, dwellMs: Int? = nil) -> TagEvent {
        let arrival = arrivals[uid] ?? TagEvent(kind: .tagArrived, reader: reader, tag: TagInfo(uid: uid, type: "unknown"))
        return arrival.following(kind, dwellMs: dwellMs)
    }
}

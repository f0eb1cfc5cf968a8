import Synchronization
import TagCore

/// The named tags of a config (`tags:`): gives each event of a known tag its
/// `tag.name` and `tag.groups` before routes are matched, whatever source the
/// event came from. A tag is known by its UID, else its Home Assistant tag id,
/// else by the first entry whose content conditions its arrival meets; the
/// events after an arrival (held, tapped, removed), which carry no content, get
/// the name their arrival got.
public final class TagRegistry: Sendable {
    public let entries: [TagEntry]
    private let byUID: [TagUID: Int]
    private let byTagID: [String: Int]
    private let byContent: [Int]
    /// The entry each present tag was named by from its content, until its removal.
    private let presences = Mutex<[Presence: Int]>([:])
    /// The tags present whose arrival's SUN message was verified, until their removal:
    /// an entry with `require_sun` names their later events too.
    private let verifiedPresences = Mutex<Set<Presence>>([])

    /// A tag on a reader.
    private struct Presence: Hashable {
        let reader: String
        let uid: TagUID
    }

    /// At most this many content-named tags are remembered as present: a source
    /// that never sends removals cannot grow the memory without bound.
    static let presenceLimit = 10_000

    public init(_ entries: [TagEntry] = []) {
        self.entries = entries
        var byUID: [TagUID: Int] = [:]
        var byTagID: [String: Int] = [:]
        for (index, entry) in entries.enumerated() {
            for uid in entry.uids where byUID[uid] == nil { byUID[uid] = index }
            for tagID in entry.tagIDs where byTagID[tagID] == nil { byTagID[tagID] = index }
        }
        self.byUID = byUID
        self.byTagID = byTagID
        byContent = entries.indices.filter { entries[$0].content != nil }
    }

    /// `event` with the name and groups of its tag, when the tag is known;
    /// otherwise unchanged (a name given upstream is kept).
    public func resolve(_ event: TagEvent) -> TagEvent {
        guard !entries.isEmpty, let uid = event.tag?.uid else { return event }
        guard let index = entryIndex(event, uid: uid), proves(event, uid: uid, for: entries[index]) else { return event }
        var named = event
        named.tag?.name = entries[index].name
        named.tag?.groups = entries[index].groups
        return named
    }

    /// True unless `entry` requires a genuine chip and this event's is not (every event
    /// of a presence carries the arrival's verdict), or a verified SUN message and this
    /// presence did not bring one.
    private func proves(_ event: TagEvent, uid: TagUID, for entry: TagEntry) -> Bool {
        if entry.requiresGenuine, event.tag?.genuine != .genuine { return false }
        guard entry.requiresSUN else { return true }
        let presence = Presence(reader: event.reader, uid: uid)
        switch event.kind {
        case .tagArrived:
            let verified = event.tag?.sun?.verified == true
            verifiedPresences.withLock { presences in
                if verified, presences.count >= Self.presenceLimit { presences.removeAll() }
                if verified { presences.insert(presence) } else { presences.remove(presence) }
            }
            return verified
        case .tagRemoved:
            return verifiedPresences.withLock { $0.remove(presence) != nil }
        default:
            return verifiedPresences.withLock { $0.contains(presence) }
        }
    }

    private func entryIndex(_ event: TagEvent, uid: TagUID) -> Int? {
        if let index = byUID[uid] { return index }
        if let tagID = event.tagID, let index = byTagID[tagID] { return index }
        guard !byContent.isEmpty else { return nil }
        let presence = Presence(reader: event.reader, uid: uid)
        switch event.kind {
        case .tagArrived:
            let index = byContent.first { entries[$0].content?.meetsConditions(event) == true }
            presences.withLock { presences in
                if index != nil, presences.count >= Self.presenceLimit { presences.removeAll() }
                presences[presence] = index
            }
            return index
        case .tagRemoved:
            return presences.withLock { $0.removeValue(forKey: presence) }
        default:
            return presences.withLock { $0[presence] }
        }
    }
}

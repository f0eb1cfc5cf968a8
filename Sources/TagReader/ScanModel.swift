import TagCore

/// The scan model every reader shares, as a pure state machine: fed what the
/// reader saw in the field at each poll, it decides which `tag.arrived`,
/// `tag.held`, `tag.tapped` and `tag.removed` events to emit. A held tag arrives
/// once and is removed once; `exitDelay` bridges brief contact losses; `cooldown`
/// silences a UID that returns soon after it left; `ignoreOnConnect` silences tags
/// already lying on the reader when it connects. A silenced tag is held quietly:
/// none of its events is reported. With `hold` set, every reported presence is
/// either a hold (`tag.held` once it has lasted `hold`) or a tap (`tag.tapped`
/// just before its `tag.removed`).
public struct ScanModel: Sendable {
    /// What the reader should do for one UID.
    public enum Decision: Sendable, Equatable {
        /// A tag entered the field: read it and emit `tag.arrived`.
        case arrive(TagUID)
        /// A reported tag has stayed `hold` long: emit `tag.held`.
        case hold(TagUID)
        /// A reported tag left before `hold`: emit `tag.tapped` (its removal follows).
        case tap(TagUID)
        /// A reported tag left: emit `tag.removed` with how long it was held.
        case remove(TagUID, dwell: Duration)
    }

    private struct Presence {
        var firstSeen: ContinuousClock.Instant
        var lastSeen: ContinuousClock.Instant
        /// Whether its arrival was reported (so its removal must be too).
        var reported: Bool
        /// Whether `tag.held` was reported for it.
        var heldReported = false
    }

    public let cooldown: Duration
    public let exitDelay: Duration
    public let ignoreOnConnect: Bool
    /// How long a tag must stay for `tag.held`; nil: no tap/hold events.
    public let hold: Duration?
    private var present: [TagUID: Presence] = [:]
    /// When each reported tag was last seen before it left, for `cooldown`.
    private var departed: [TagUID: ContinuousClock.Instant] = [:]
    private var justConnected = false
    /// Whether the latest observation saw no tag at all.
    private var lastLookWasEmpty = false

    public init(cooldown: Duration, exitDelay: Duration, ignoreOnConnect: Bool, hold: Duration? = nil) {
        self.cooldown = cooldown
        self.exitDelay = exitDelay
        self.ignoreOnConnect = ignoreOnConnect
        self.hold = hold
    }

    public init(_ config: ReaderConfig) {
        self.init(cooldown: config.cooldown, exitDelay: config.exitDelay, ignoreOnConnect: config.ignoreOnConnect, hold: config.hold)
    }

    /// Tags a previous reader of the same device reported and did not remove
    /// (its settings changed on reload): they are held as reported, so lying
    /// there they do not arrive again, and their removal is reported.
    public mutating func adopt(_ uids: [TagUID], at now: ContinuousClock.Instant) {
        for uid in uids { present[uid] = Presence(firstSeen: now, lastSeen: now, reported: true) }
        lastLookWasEmpty = false  // not looked for yet: they may lie there halted, which only an inventory sees
    }

    /// True while a tag is held or waiting out its exit delay: the reader must keep
    /// checking the field instead of blocking until the next tag.
    public var isHolding: Bool { !present.isEmpty }

    /// True while tags are held only because they wait out `exitDelay`: the latest
    /// observation saw none of them (nor any other tag). The field looks empty, so the
    /// reader watches it as it watches an empty one and a tag placed now is read from
    /// the look that found it (a quick swap), not from the next inventory.
    public var isWaitingOutExit: Bool { isHolding && lastLookWasEmpty }

    /// The earliest moment a reported tag still present becomes a hold: the reader
    /// must look at the field then, so `tag.held` fires on time. Nil when none is due.
    public var nextHoldDue: ContinuousClock.Instant? {
        guard let hold else { return nil }
        return present.values.filter { $0.reported && !$0.heldReported }.map { $0.firstSeen + hold }.min()
    }

    /// The reader (re)connected: the next observation is what was already lying there.
    public mutating func connected() {
        justConnected = true
    }

    /// True from `connected()` until the next observation: what that observation
    /// holds counts as lying there already (`ignoreOnConnect`).
    public var awaitsFirstLook: Bool { justConnected }

    /// The tags present in the field at `now` (in the order the reader listed them).
    /// Returns removals first (in UID order, each tap just before its removal), then
    /// holds (in UID order), then arrivals (in the given order).
    public mutating func observe(_ seen: [TagUID], at now: ContinuousClock.Instant) -> [Decision] {
        let silenceAll = justConnected && ignoreOnConnect
        justConnected = false
        lastLookWasEmpty = seen.isEmpty
        var decisions: [Decision] = []
        let seenSet = Set(seen)
        for (uid, tag) in present.sorted(by: { $0.key.hex < $1.key.hex }) where !seenSet.contains(uid) {
            guard now - tag.lastSeen >= exitDelay else { continue }
            present[uid] = nil
            if tag.reported {
                departed[uid] = tag.lastSeen
                if hold != nil && !tag.heldReported { decisions.append(.tap(uid)) }
                decisions.append(.remove(uid, dwell: tag.lastSeen - tag.firstSeen))
            }
        }
        for uid in seen where present[uid] != nil {
            present[uid]?.lastSeen = now
        }
        if let hold {
            for (uid, tag) in present.sorted(by: { $0.key.hex < $1.key.hex })
            where seenSet.contains(uid) && tag.reported && !tag.heldReported && now - tag.firstSeen >= hold {
                present[uid]?.heldReported = true
                decisions.append(.hold(uid))
            }
        }
        for uid in seen where present[uid] == nil {
            let cooling = departed[uid].map { now - $0 < cooldown } ?? false
            let report = !silenceAll && !cooling
            present[uid] = Presence(firstSeen: now, lastSeen: now, reported: report)
            if report { decisions.append(.arrive(uid)) }
        }
        departed = departed.filter { now - $0.value < cooldown }
        return decisions
    }

    /// The reader was lost: every reported tag is removed now (its dwell counted to
    /// when it was last seen), and the held set is cleared. No tap is reported: the
    /// reader left, not the tag.
    public mutating func disconnected() -> [Decision] {
        let decisions = present.sorted(by: { $0.key.hex < $1.key.hex }).compactMap { uid, tag -> Decision? in
            tag.reported ? .remove(uid, dwell: tag.lastSeen - tag.firstSeen) : nil
        }
        for (uid, tag) in present where tag.reported { departed[uid] = tag.lastSeen }
        present = [:]
        return decisions
    }
}

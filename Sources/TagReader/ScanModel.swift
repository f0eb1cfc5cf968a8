import TagCore

/// The scan model every reader shares, as a pure state machine: fed what the
/// reader saw in the field at each poll, it decides which `tag.arrived` and
/// `tag.removed` events to emit. A held tag arrives once and is removed once;
/// `exitDelay` bridges brief contact losses; `cooldown` silences a UID that
/// returns soon after it left; `ignoreOnConnect` silences tags already lying on
/// the reader when it connects. A silenced tag is held quietly: neither its
/// arrival nor its removal is reported.
public struct ScanModel: Sendable {
    /// What the reader should do for one UID.
    public enum Decision: Sendable, Equatable {
        /// A tag entered the field: read it and emit `tag.arrived`.
        case arrive(TagUID)
        /// A reported tag left: emit `tag.removed` with how long it was held.
        case remove(TagUID, dwell: Duration)
    }

    private struct Held {
        var firstSeen: ContinuousClock.Instant
        var lastSeen: ContinuousClock.Instant
        /// Whether its arrival was reported (so its removal must be too).
        var reported: Bool
    }

    public let cooldown: Duration
    public let exitDelay: Duration
    public let ignoreOnConnect: Bool
    private var held: [TagUID: Held] = [:]
    /// When each reported tag was last seen before it left, for `cooldown`.
    private var departed: [TagUID: ContinuousClock.Instant] = [:]
    private var justConnected = false

    public init(cooldown: Duration, exitDelay: Duration, ignoreOnConnect: Bool) {
        self.cooldown = cooldown
        self.exitDelay = exitDelay
        self.ignoreOnConnect = ignoreOnConnect
    }

    public init(_ config: ReaderConfig) {
        self.init(cooldown: config.cooldown, exitDelay: config.exitDelay, ignoreOnConnect: config.ignoreOnConnect)
    }

    /// Tags a previous reader of the same device reported and did not remove
    /// (its settings changed on reload): they are held as reported, so lying
    /// there they do not arrive again, and their removal is reported.
    public mutating func adopt(_ uids: [TagUID], at now: ContinuousClock.Instant) {
        for uid in uids { held[uid] = Held(firstSeen: now, lastSeen: now, reported: true) }
    }

    /// True while a tag is held or waiting out its exit delay: the reader must keep
    /// checking the field instead of blocking until the next tag.
    public var isHolding: Bool { !held.isEmpty }

    /// The reader (re)connected: the next observation is what was already lying there.
    public mutating func connected() {
        justConnected = true
    }

    /// The tags present in the field at `now` (in the order the reader listed them).
    /// Returns removals first (in UID order), then arrivals (in the given order).
    public mutating func observe(_ present: [TagUID], at now: ContinuousClock.Instant) -> [Decision] {
        let silenceAll = justConnected && ignoreOnConnect
        justConnected = false
        var decisions: [Decision] = []
        let presentSet = Set(present)
        for (uid, tag) in held.sorted(by: { $0.key.hex < $1.key.hex }) where !presentSet.contains(uid) {
            guard now - tag.lastSeen >= exitDelay else { continue }
            held[uid] = nil
            if tag.reported {
                departed[uid] = tag.lastSeen
                decisions.append(.remove(uid, dwell: tag.lastSeen - tag.firstSeen))
            }
        }
        for uid in present {
            if held[uid] != nil {
                held[uid]?.lastSeen = now
                continue
            }
            let cooling = departed[uid].map { now - $0 < cooldown } ?? false
            let report = !silenceAll && !cooling
            held[uid] = Held(firstSeen: now, lastSeen: now, reported: report)
            if report { decisions.append(.arrive(uid)) }
        }
        departed = departed.filter { now - $0.value < cooldown }
        return decisions
    }

    /// The reader was lost: every reported tag is removed now (its dwell counted to
    /// when it was last seen), and the held set is cleared.
    public mutating func disconnected() -> [Decision] {
        let decisions = held.sorted(by: { $0.key.hex < $1.key.hex }).compactMap { uid, tag -> Decision? in
            tag.reported ? .remove(uid, dwell: tag.lastSeen - tag.firstSeen) : nil
        }
        for (uid, tag) in held where tag.reported { departed[uid] = tag.lastSeen }
        held = [:]
        return decisions
    }
}

import TagCore
import TagReader

/// A PC/SC reader's field (`FieldTransport`): a look waits in `SCardGetStatusChange` until the
/// slot changes (no CPU while the field is empty or a card lies still), or as long as the scan
/// model asks (a tag waiting out its exit delay, a hold coming due); a new card is connected to
/// and its UID read at once (GET DATA), and that connection reads it when it arrives.
struct PCSCField: FieldTransport {
    /// Why the field can no longer be watched.
    enum Failure: Error {
        /// `SCardCancel`: the reader is stopping.
        case stopped
        /// pcscd failed, or the reader went away.
        case lost(String)
    }

    /// A card in the slot: its UID, its ATR, and the connection made to read its UID (only in the
    /// look that found it).
    struct Card: FieldTarget {
        let uid: TagUID
        let atr: [UInt8]
        let connection: PCSCCard?

        var info: TagInfo { TagInfo(uid: uid, type: PCSCCardName.identify(atr: atr)?.type ?? "unknown") }
    }

    let config: ReaderConfig
    let context: PCSCContext
    /// The reader's name in pcscd.
    let reader: String
    /// The slot's state as last seen.
    private var known: PCSCContext.ReaderState?
    /// The card in the slot and the slot's event count when its UID was read; nil when empty.
    private var card: (uid: TagUID, events: UInt32)?
    /// pcscd says a card is there, but it did not answer GET DATA (it left, or is
    /// leaving, before pcscd noticed): look again soon instead of waiting for a change.
    private var unreadCard = false
    /// The card just left: it was there until pcscd said so (its dwell, the exit delay's start),
    /// which the last look said; the next one, at once, finds the slot empty.
    private var leftJustNow = false

    init(config: ReaderConfig, context: PCSCContext, reader: String) {
        self.config = config
        self.context = context
        self.reader = reader
    }

    mutating func observe(for model: ScanModel) throws(Failure) -> FieldLook<Card>? {
        if leftJustNow {
            leftJustNow = false
            return FieldLook([], sensed: .now)
        }
        let changed: PCSCContext.ReaderState?
        do {
            changed = try context.waitForChange(reader: reader, known: known, timeout: waitLimit(model))
        } catch {
            throw error.isCancelled ? .stopped : .lost(error.description)
        }
        if let changed {
            known = changed
            if changed.unavailable { throw .lost("\(reader) is no longer available") }
        }
        guard let current = known else { return nil }
        let sensed = ContinuousClock.now
        guard current.cardPresent else {
            unreadCard = false
            defer { card = nil }
            guard let held = card else { return FieldLook([], sensed: sensed) }
            leftJustNow = true
            return FieldLook([Card(uid: held.uid, atr: current.atr, connection: nil)], sensed: sensed)
        }
        var connection: PCSCCard?
        if card?.events != current.eventCount {
            card = nil
            if let opened = try? context.connect(reader: reader), let uid = try? PCSCInspector.readUID(opened, atr: current.atr), !uid.isEmpty {
                card = (TagUID(bytes: uid), current.eventCount)
                connection = opened
            }
        }
        unreadCard = card == nil
        // The first look after connecting is what already lies there (`ignore_on_connect`):
        // a card that did not answer yet is not "nothing" — fed as such, it would use
        // that look up and "arrive" once it answers. It is asked again within `poll_interval`.
        if unreadCard && model.awaitsFirstLook { return nil }
        return FieldLook(card.map { [Card(uid: $0.uid, atr: current.atr, connection: connection)] } ?? [], sensed: sensed)
    }

    /// How long the next wait may block: while a tag that left waits out its exit delay or a card
    /// could not be read, `poll_interval`; until a hold comes due; otherwise until the slot changes.
    private func waitLimit(_ model: ScanModel) -> Duration? {
        let polling = (model.isHolding && card == nil) || unreadCard ? config.pollInterval : nil
        guard let due = model.nextHoldDue.map({ max(.zero, $0 - .now) }) else { return polling }
        return min(polling ?? due, due)
    }

    /// Names the card through the connection that read its UID; a card found lying still has none
    /// (it is not reached again).
    mutating func select(_ target: Card) -> FieldReach {
        guard let connection = target.connection else { return .gone(reason: nil) }
        do {
            return .identified(try PCSCInspector.identify(connection, atr: target.atr, uid: target.uid))
        } catch {
            return .gone(reason: error.description)
        }
    }
}

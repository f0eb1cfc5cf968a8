import TagCore
import TagReader

/// The scan loop's state on one PC/SC reader: the scan model fed what the
/// reader's slot holds at each change, the card read when the model reports
/// its arrival (or handed to a waiting job instead), and the arrivals of
/// reported tags for the events after them.
struct PCSCScan {
    let config: ReaderConfig
    /// The jobs waiting for this reader's next tag (a card lying still is not reached again).
    let jobs: TagJobQueue?
    private var model: ScanModel
    /// The reported arrivals, for the events after them.
    private var presence: PresenceEvents
    /// The card in the slot and the slot's event count when it was read; nil when empty.
    private var card: (uid: TagUID, events: UInt32)?
    /// pcscd says a card is there, but it did not answer GET DATA (it left, or is
    /// leaving, before pcscd noticed): look again soon instead of waiting for a change.
    private var unreadCard = false

    init(config: ReaderConfig, jobs: TagJobQueue? = nil) {
        self.config = config
        self.jobs = jobs
        model = ScanModel(config)
        model.connected()
        presence = PresenceEvents(reader: config.name)
    }

    /// How long the next wait may block: while a tag that left waits out its
    /// exit delay or a card could not be read, `pollInterval`; otherwise until the slot changes.
    var waitLimit: Duration? { (model.isHolding && card == nil) || unreadCard ? config.pollInterval : nil }

    /// Feeds the model what the slot holds now, reading a new card (its UID, and
    /// all of it when the model reports its arrival), and emits what it decides.
    mutating func observe(_ state: PCSCContext.ReaderState, connect: () throws(PCSCError) -> PCSCCard, emit: (TagEvent) -> Void) {
        let sensed = ContinuousClock.now
        var connected: PCSCCard?
        if !state.cardPresent {
            // pcscd saw the card until this change: it was there until now (its dwell, the exit delay's start).
            if let held = card { _ = model.observe([held.uid], at: .now) }
            card = nil
        } else if card?.events != state.eventCount {
            card = nil
            if let opened = try? connect(),
                let uid = try? PCSCInspector.readUID(opened, atr: state.atr), !uid.isEmpty
            {
                card = (TagUID(bytes: uid), state.eventCount)
                connected = opened
            }
        }
        unreadCard = state.cardPresent && card == nil
        // The first look after connecting is what already lies there (`ignore_on_connect`):
        // a card that did not answer yet is not "nothing" — fed as such, it would use
        // that look up and "arrive" once it answers. It is asked again within `poll_interval`.
        if unreadCard && model.awaitsFirstLook { return }
        for decision in model.observe(card.map { [$0.uid] } ?? [], at: .now) {
            if case .arrive(let uid) = decision, let opened = connected, let job = jobs?.claim(arriving: true) {
                presence.claim(uid)
                job.finish(Self.perform(job.job, on: opened, atr: state.atr, uid: uid, reader: config.name))
            } else if case .arrive(let uid) = decision {
                let readout = connected.map { PCSCInspector.inspect($0, atr: state.atr, uid: uid, signature: config.readsSignature) }
                    ?? TagReadout(info: TagInfo(uid: uid, type: PCSCCardName.identify(atr: state.atr)?.type ?? "unknown"), ndefError: TagReadout.removedDuringRead)
                emit(presence.arrived(readout.arrivedEvent(reader: config.name, sensed: sensed)))
            } else if let event = presence.event(for: decision) {
                emit(event)
            }
        }
    }

    private static func perform(_ job: TagJob, on card: PCSCCard, atr: [UInt8], uid: TagUID, reader: String) -> TagJobResult {
        do {
            return TagJobWork.perform(job, on: try PCSCInspector.identify(card, atr: atr, uid: uid), reader: reader)
        } catch {
            let result = TagJobResult.refused(TagJobRefusal(.tagLeft, "the card could not be reached: \(error)"))
            TagJobWork.log(result, job: job, tag: nil, reader: reader)
            return result
        }
    }

    /// The reader was lost: the removal of every reported tag.
    mutating func readerLost() -> [TagEvent] {
        card = nil
        return model.disconnected().compactMap { presence.event(for: $0) }
    }
}

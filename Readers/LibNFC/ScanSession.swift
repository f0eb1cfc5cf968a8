import TagCore
import TagReader

/// The scan loop on one open device: polls the field, feeds the scan model, reads
/// arriving tags and turns the model's decisions into events; a tag that arrives
/// while a job waits (docs/control.md "write and read") is handed to the job
/// instead of being reported. Lives on the reader thread for as long as the device stays open.
struct ScanSession {
    let config: ReaderConfig
    let device: NFCDevice
    /// The read and write jobs waiting for this reader's tags.
    let jobs: TagJobQueue?
    private var model: ScanModel
    /// The reported arrivals, for the events after them.
    private var presence: PresenceEvents
    /// The tag libnfc has selected right now (the PN532's target 1), if known.
    private var selected: TagUID?
    /// How long to sleep before the next `step`; nil to call it at once (it blocks in the device).
    private(set) var pauseBeforeNextStep: Duration?
    /// With `fast` polling, where the looks are in their round (`observe`).
    private var fastTurn = 0
    /// When the latest look at the field began (InAutoPoll: when the chip answered, as
    /// the driver cannot tell when in its wait the chip saw the tag).
    private var lookStarted = ContinuousClock.now

    /// `adopting`: the arrivals of tags the previous reader reported lying on this
    /// one (see `ScanModel.adopt`); their later events keep those arrivals' identity.
    init(config: ReaderConfig, device: NFCDevice, jobs: TagJobQueue? = nil, adopting present: [TagEvent] = []) {
        self.config = config
        self.device = device
        self.jobs = jobs
        model = ScanModel(config)
        model.connected()
        model.adopt(present.compactMap(\.tag?.uid), at: .now)
        presence = PresenceEvents(reader: config.name, adopting: present)
    }

    /// One poll of the field; emits the events it leads to as they happen.
    /// Throws when the device failed (the caller retries or reopens).
    mutating func step(emit: (TagEvent) -> Void) throws(NFCError) {
        lookStarted = .now
        let present = try observe()
        for decision in model.observe(present.map(\.uid), at: .now) {
            if case .arrive(let uid) = decision {
                guard let target = present.first(where: { $0.uid == uid }) else { continue }
                if let job = jobs?.claim(arriving: true) {
                    presence.claim(uid)
                    job.finish(perform(job.job, on: target))
                } else {
                    emit(presence.arrived(read(target).arrivedEvent(reader: config.name, sensed: lookStarted)))
                }
            } else if let event = presence.event(for: decision) {
                emit(event)
            }
        }
        if let jobs, jobs.wantsPresentTag, let target = present.first, let job = jobs.claim(arriving: false) {
            job.finish(present.count == 1 ? perform(job.job, on: target) : Self.severalTags(present.count))
        }
        if let lost = device.lost { throw lost }
        pauseBeforeNextStep = nextPause()
    }

    /// While tags are held the field is checked every poll interval, and at the
    /// moment a tag becomes a hold; with `list-passive` an empty field is polled too.
    private func nextPause() -> Duration? {
        guard model.isHolding || config.polling == .listPassive else { return nil }
        if model.isWaitingOutExit && config.polling == .fast { return nil }
        guard let due = model.nextHoldDue else { return config.pollInterval }
        return max(.zero, min(config.pollInterval, due - .now))
    }

    /// The chip was re-initialised (field reset): no tag is selected any more.
    mutating func chipWasReset() {
        selected = nil
    }

    /// The device was lost: the removal of every reported tag.
    mutating func readerLost() -> [TagEvent] {
        model.disconnected().compactMap { presence.event(for: $0) }
    }

    /// The tags in the field now. With nothing held, auto-poll blocks in the
    /// PN532's InAutoPoll, list-passive takes one quick look at every modulation
    /// and fast one at a single modulation; with tags held, an inventory answers
    /// for all of them. Tags that were missing from the last look and wait out
    /// `exitDelay` are not held in the field: it is watched as an empty one (auto-poll
    /// as list-passive, so the exit delay ends on time), and a tag swapped in is read
    /// from the look that found it, without a field reset.
    private mutating func observe() throws(NFCError) -> [NFCTarget] {
        if model.isHolding && !model.isWaitingOutExit { return try inventory() }
        switch config.polling {
        // With fast polling too, what lies there at connection (`ignore_on_connect`) is every modulation's.
        case .listPassive,
             .fast where model.awaitsFirstLook,
             .autoPoll where model.isWaitingOutExit:
            return try quickLook(NFCTarget.Modulation.allCases)
        case .fast:
            // Type A (NTAG, MIFARE, Type 4: most tags) three looks in four, FeliCa and
            // Jewel by turns in the fourth: a look at another modulation makes a type A
            // tag wait for its end (~18 ms).
            let others = NFCTarget.Modulation.allCases.filter { $0 != .iso14443A }
            fastTurn = (fastTurn + 1) % (4 * others.count)
            return try quickLook([fastTurn % 4 == 3 ? others[fastTurn / 4] : .iso14443A])
        case .autoPoll:
            break
        }
        let polled = try device.autoPoll(pollCount: config.autoPollRounds, period: 1)
        lookStarted = .now
        switch (polled.count, polled.target) {
        case (1, let target?):
            selected = target.uid
            return [target]
        case (0, _), (_, nil):
            return []
        default:
            return try inventory()
        }
    }

    /// One selection per modulation in turn, up to the first tag. Nothing is held, so
    /// nothing in the field is halted: no field reset. One tag at most, which libnfc
    /// leaves selected for the read; a second one placed at the same moment is found
    /// by the next inventory.
    private mutating func quickLook(_ modulations: [NFCTarget.Modulation]) throws(NFCError) -> [NFCTarget] {
        for modulation in modulations {
            if let target = try device.selectAny(modulation) {
                selected = target.uid
                return [target]
            }
        }
        selected = nil
        return []
    }

    /// Resets the field (so halted tags answer again) and lists the tags of every
    /// modulation: up to two type A tags, one FeliCa, one Jewel.
    private mutating func inventory() throws(NFCError) -> [NFCTarget] {
        try device.resetField()
        var targets: [NFCTarget] = []
        for modulation in NFCTarget.Modulation.allCases {
            targets += try device.listPassiveTargets(modulation, max: modulation.inventoryLimit)
        }
        // Each listing releases what the one before selected: read tags are selected again.
        selected = nil
        return targets
    }

    /// Does `job` on `target` (selected again if needed).
    private mutating func perform(_ job: TagJob, on target: NFCTarget) -> TagJobResult {
        guard let tag = selectAndIdentify(target) else {
            let result = TagJobResult.refused(TagJobRefusal(.tagLeft, device.lost.map { "reader failed: \($0)" } ?? "the tag left the field before it could be reached"))
            TagJobWork.log(result, job: job, tag: nil, reader: config.name)
            return result
        }
        return TagJobWork.perform(job, on: tag, reader: config.name)
    }

    static func severalTags(_ count: Int) -> TagJobResult {
        .refused(TagJobRefusal(.failed, "\(count) tags lie on the reader; leave only the one to read or write"))
    }

    /// Selects `target` if needed and identifies it; nil when it is gone.
    private mutating func selectAndIdentify(_ target: NFCTarget) -> TagInspector.Identified? {
        var target = target
        if selected != target.uid {
            guard let reselected = TagInspector.reselect(target, on: device) else { return nil }
            target = reselected
        }
        selected = nil
        return TagInspector.identify(target, on: device)
    }

    /// Selects `target` if needed and reads it; a tag that leaves or a device that
    /// fails on the way yields a readout with `ndefError` saying so.
    private mutating func read(_ target: NFCTarget) -> TagReadout {
        guard let tag = selectAndIdentify(target) else {
            return TagReadout(target: target, ndefError: device.lost.map { "reader failed: \($0)" } ?? TagReadout.removedDuringRead)
        }
        return TagInspector.read(tag, signature: config.readsSignature)
    }
}

import TagCore
import TagReader

/// A libnfc reader's field (`FieldTransport`): with nothing held, auto-poll blocks in the PN532's
/// InAutoPoll, list-passive takes one quick look at every modulation and fast one at a single
/// modulation; with tags held, an inventory answers for all of them. Tags that were missing from
/// the last look and wait out `exit_delay` are not held in the field: it is watched as an empty
/// one (auto-poll as list-passive, so the exit delay ends on time), and a tag swapped in is read
/// from the look that found it, without a field reset (the quick swap).
struct LibNFCField: FieldTransport {
    let config: ReaderConfig
    let device: NFCDevice
    /// Sleeps for a while unless the reader stops first.
    private let pause: (Duration) -> Void
    /// The tag libnfc has selected right now (the PN532's target 1), if known.
    private var selected: TagUID?
    /// With `fast` polling, where the looks are in their round.
    private var fastTurn = 0

    init(config: ReaderConfig, device: NFCDevice, pause: @escaping (Duration) -> Void) {
        self.config = config
        self.device = device
        self.pause = pause
    }

    var lost: NFCError? { device.lost }

    var reachesLyingTags: Bool { true }

    mutating func observe(for model: ScanModel) throws(NFCError) -> FieldLook<NFCTarget>? {
        if let wait = Self.pause(before: model, config: config) { pause(wait) }
        var sensed = ContinuousClock.now
        let targets = try look(model, sensed: &sensed)
        return FieldLook(targets, sensed: sensed)
    }

    /// While tags are held the field is checked every poll interval, and at the moment a tag
    /// becomes a hold; with `list-passive` an empty field is polled too. Not before the first look.
    static func pause(before model: ScanModel, config: ReaderConfig) -> Duration? {
        guard !model.awaitsFirstLook, model.isHolding || config.polling == .listPassive else { return nil }
        if model.isWaitingOutExit && config.polling == .fast { return nil }
        guard let due = model.nextHoldDue else { return config.pollInterval }
        return max(.zero, min(config.pollInterval, due - .now))
    }

    /// The tags in the field now (see the type's comment); `sensed` moves to the chip's answer
    /// for auto-poll, as the driver cannot tell when in its wait the chip saw the tag.
    private mutating func look(_ model: ScanModel, sensed: inout ContinuousClock.Instant) throws(NFCError) -> [NFCTarget] {
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
        sensed = .now
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

    /// Selects `target` if needed (a field reset and a selection) and identifies it.
    mutating func select(_ target: NFCTarget) -> FieldReach {
        var target = target
        if selected != target.uid {
            guard let reselected = TagInspector.reselect(target, on: device) else { return gone }
            target = reselected
        }
        selected = nil
        guard let tag = TagInspector.identify(target, on: device) else { return gone }
        return .identified(tag)
    }

    /// A tag that did not answer: the device's failure when that was the cause.
    private var gone: FieldReach { .gone(reason: device.lost.map { "reader failed: \($0)" }) }

    /// The chip was re-initialised (field reset): no tag is selected any more.
    mutating func chipWasReset() {
        selected = nil
    }
}

extension NFCTarget: FieldTarget {
    /// What activation tells.
    package var info: TagInfo { TagInspector.identity(of: self) }
}

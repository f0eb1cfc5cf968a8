import OrderedJSON
import SystemKit
import TagCore
import TagReader

/// The scan loop of one open keyboard-wedge reader: input records in, the
/// numbers typed out of them (`KeystrokeAssembler`), each number as the UID it
/// stands for (`CardNumberFormat`), fed to the scan model as "seen now". These
/// readers report no removal: a tag counts as gone `exit_delay` after its number
/// was last typed, and the events that follow from that (`tag.removed`, and
/// `tag.tapped`) say `removal_assumed`.
struct KeyboardSession {
    let config: ReaderConfig
    let settings: KeyboardSettings
    /// Jobs waiting for this reader's tags: refused, a keyboard reader reaches no tag.
    let jobs: TagJobQueue?
    private var decoder = InputEventDecoder()
    private var assembler: KeystrokeAssembler
    private var model: ScanModel
    private var presence: PresenceEvents

    /// `adopting`: the arrivals of tags the previous reader of this device reported and did not remove
    /// (a reload changed its settings): they stay present, and their assumed removal follows.
    init(config: ReaderConfig, settings: KeyboardSettings, jobs: TagJobQueue? = nil, adopting present: [TagEvent] = []) {
        self.config = config
        self.settings = settings
        self.jobs = jobs
        assembler = KeystrokeAssembler(keyGap: settings.keyGap)
        // No `connected()`: nothing can be seen lying on a keyboard reader, so its first number is a tap like any other.
        model = ScanModel(config)
        model.adopt(present.compactMap(\.tag?.uid), at: .now)
        presence = PresenceEvents(reader: config.name, adopting: present)
    }

    /// How long the reader may wait for input before `pause(at:)` is due: the key gap
    /// while a number is being typed, the poll interval while a tag counts as present.
    var waitLimit: Duration? {
        if assembler.isTyping { return settings.keyGap }
        return model.isHolding ? config.pollInterval : nil
    }

    /// Bytes read from the device at `now`: the events they lead to.
    mutating func received(_ bytes: ArraySlice<UInt8>, at now: ContinuousClock.Instant) -> [TagEvent] {
        decoder.events(bytes).flatMap { assembler.feed($0) }.flatMap { handle($0, at: now) } + look(at: now, seen: [])
    }

    /// Nothing came for `waitLimit`: a number waiting for its pause is complete, and a tag not typed again for `exit_delay` has left.
    mutating func pause(at now: ContinuousClock.Instant) -> [TagEvent] {
        (assembler.pause().map { handle($0, at: now) } ?? []) + look(at: now, seen: [])
    }

    /// The device is gone: the removal of every reported tag.
    mutating func readerLost() -> [TagEvent] {
        model.disconnected().compactMap { presence.event(for: $0).map(Self.assumed) }
    }

    private mutating func handle(_ outcome: KeystrokeAssembler.Outcome, at now: ContinuousClock.Instant) -> [TagEvent] {
        switch outcome {
        case .rejected(let why):
            Log.debug("keys that are no card number", JSONObject(["reader": .string(config.name), "why": .string(why)]))
            return []
        case .number(let typed):
            guard let uid = settings.format.uid(typed) else {
                Log.debug("keys that are no card number", JSONObject([
                    "reader": .string(config.name), "why": .string("\(typed.count) characters, not a \(settings.format.notation.rawValue) card number"),
                ]))
                return []
            }
            return look(at: now, seen: [uid])
        }
    }

    private mutating func look(at now: ContinuousClock.Instant, seen: [TagUID]) -> [TagEvent] {
        guard !seen.isEmpty || model.isHolding else { return [] }
        return model.observe(seen, at: now).compactMap { decision -> TagEvent? in
            guard case .arrive(let uid) = decision else { return presence.event(for: decision).map(Self.assumed) }
            if let job = jobs?.claim(arriving: true) {
                presence.claim(uid)
                job.finish(.refused(TagJobRefusal(.unsupported, "reader '\(config.name)' is a keyboard-wedge reader: it types the card's number and reaches nothing on the tag")))
                return nil
            }
            return presence.arrived(TagEvent(kind: .tagArrived, reader: config.name, tag: TagInfo(uid: uid, type: "unknown")))
        }
    }

    /// `event` marked as following from a removal the reader did not report.
    private static func assumed(_ event: TagEvent) -> TagEvent {
        var event = event
        if event.kind == .tagRemoved || event.kind == .tagTapped { event.removalAssumed = true }
        return event
    }
}

import OrderedJSON
import SystemKit
import TagCore
import TagReader

/// A keyboard-wedge reader's field (`FieldTransport`), which it only observes: input records in,
/// the numbers typed out of them (`KeystrokeAssembler`), each number as the UID it stands for
/// (`CardNumberFormat`), "seen now". A look waits in `poll(2)` for keys (no CPU between cards),
/// for the key gap while a number is typed, and while a tag counts as present for the poll
/// interval. These readers report no removal, and nothing on a tag is reached.
struct KeyboardField: FieldTransport {
    /// The device went away (unplugged: ENODEV, or the end of the input); says how.
    struct Lost: Error {
        let reason: String
    }

    /// A card number typed, as the UID it stands for.
    struct Card: FieldTarget {
        let uid: TagUID

        var info: TagInfo { TagInfo(uid: uid, type: "unknown") }
    }

    let config: ReaderConfig
    let settings: KeyboardSettings
    /// The device's input records (an input device, or in tests a pipe).
    let input: Int32
    /// Readable once the reader is asked to stop: it ends a wait.
    let wake: Int32
    private var decoder = InputEventDecoder()
    private var assembler: KeystrokeAssembler
    private var buffer = [UInt8](repeating: 0, count: 64 * InputEvent.size)

    init(config: ReaderConfig, settings: KeyboardSettings, input: Int32, wake: Int32) {
        self.config = config
        self.settings = settings
        self.input = input
        self.wake = wake
        assembler = KeystrokeAssembler(keyGap: settings.keyGap)
    }

    var seesTagsLyingThere: Bool { false }

    var seesRemovals: Bool { false }

    mutating func observe(for model: ScanModel) throws(Lost) -> FieldLook<Card>? {
        let typed: [KeystrokeAssembler.Outcome]
        switch InputDevice.read(input, timeout: waitLimit(model), wake: wake, into: &buffer) {
        case .bytes(let bytes): typed = decoder.events(bytes).flatMap { assembler.feed($0) }
        case .timeout: typed = assembler.pause().map { [$0] } ?? []
        case .gone(let reason): throw Lost(reason: reason)
        }
        var cards: [Card] = []
        for uid in typed.compactMap(uid) where !cards.contains(where: { $0.uid == uid }) { cards.append(Card(uid: uid)) }
        // Nothing typed and nothing held: nothing to tell the scan model.
        guard !cards.isEmpty || model.isHolding else { return nil }
        return FieldLook(cards, sensed: .now)
    }

    /// How long a look may wait for input: the key gap while a number is being typed, the poll
    /// interval while a tag counts as present (its assumed removal comes due), until a hold does.
    func waitLimit(_ model: ScanModel) -> Duration? {
        if assembler.isTyping { return settings.keyGap }
        let due = model.nextHoldDue.map { max(.zero, $0 - .now) }
        guard model.isHolding else { return due }
        return min(config.pollInterval, due ?? config.pollInterval)
    }

    /// The UID a number typed stands for; nil (logged) for keys that are no card number.
    private func uid(_ outcome: KeystrokeAssembler.Outcome) -> TagUID? {
        switch outcome {
        case .rejected(let why):
            Log.debug("keys that are no card number", JSONObject(["reader": .string(config.name), "why": .string(why)]))
            return nil
        case .number(let typed):
            guard let uid = settings.format.uid(typed) else {
                Log.debug("keys that are no card number", JSONObject([
                    "reader": .string(config.name), "why": .string("\(typed.count) characters, not a \(settings.format.notation.rawValue) card number"),
                ]))
                return nil
            }
            return uid
        }
    }

    /// A keyboard reader reaches nothing on a tag: its arrival is the number typed, and jobs are refused.
    mutating func select(_ target: Card) -> FieldReach {
        .unreachable(reason: "reader '\(config.name)' is a keyboard-wedge reader: it types the card's number and reaches nothing on the tag")
    }
}

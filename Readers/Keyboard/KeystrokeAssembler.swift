/// Turns a keyboard-wedge reader's key presses into the numbers it typed: the
/// characters of one burst of keys, ended by Enter or Tab, or by a pause longer
/// than `keyGap` for a reader that types no terminator. What a person types is
/// not a card: keys further apart than `keyGap` are not one number, so a number
/// typed at human speed comes apart into pieces too short for any card; a held
/// key (autorepeat), a key that is neither a digit nor a hex letter, or more than
/// `maxLength` characters spoil the number being typed.
struct KeystrokeAssembler: Sendable {
    /// What one burst of keys came to.
    enum Outcome: Sendable, Equatable {
        /// The characters typed (digits and lower-case hex letters).
        case number(String)
        /// Keys that are no card number, and why (their characters are not kept: a person may have typed them).
        case rejected(String)
    }

    /// The longest pause between two keys of one number.
    let keyGap: Duration
    /// The most characters a card number has (a 10-byte UID in hex).
    let maxLength: Int
    private var typed = ""
    private var lastKey: Duration?
    private var spoiled: String?

    init(keyGap: Duration, maxLength: Int = 20) {
        self.keyGap = keyGap
        self.maxLength = maxLength
    }

    /// True while keys of an unfinished number wait for more (or for the pause that ends it).
    var isTyping: Bool { lastKey != nil }

    /// Feeds one input event; returns what it completed.
    mutating func feed(_ event: InputEvent) -> [Outcome] {
        guard event.type == InputEvent.key, event.value != InputEvent.released else { return [] }
        var outcomes: [Outcome] = []
        if let last = lastKey, event.time - last > keyGap, let outcome = finish() { outcomes.append(outcome) }
        lastKey = event.time
        if event.value == InputEvent.repeated {
            spoiled = spoiled ?? "a key was held down (autorepeat)"
            return outcomes
        }
        switch KeyCode.meaning(of: event.code) {
        case .character(let character):
            typed.append(character)
            if typed.count > maxLength { spoiled = spoiled ?? "longer than any card number (\(maxLength) characters)" }
        case .end:
            if let outcome = finish() { outcomes.append(outcome) }
        case .modifier:
            break
        case .other:
            spoiled = spoiled ?? "a key that is neither a digit nor a hex letter (code \(event.code))"
        }
        return outcomes
    }

    /// No key came for `keyGap`: the number typed so far is complete (a reader that types no Enter).
    mutating func pause() -> Outcome? { finish() }

    private mutating func finish() -> Outcome? {
        defer {
            typed = ""
            spoiled = nil
            lastKey = nil
        }
        if let spoiled { return .rejected(spoiled) }
        return typed.isEmpty ? nil : .number(typed)
    }
}

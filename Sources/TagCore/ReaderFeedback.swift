/// What a reader shows a person at the door: one LED/buzzer pattern per
/// moment of a tap (`readers[].feedback`), and the host's sound for it. The router's spec declares the
/// defaults; the reader module turns a pattern into its model's bytes.
public struct ReaderFeedback: Sendable, Equatable {
    /// The moment a pattern answers.
    public enum Moment: String, Sendable, Equatable, CaseIterable {
        /// A tag arrived: shown at once, before routing.
        case arrival
        /// Every action of every matched route was delivered.
        case success
        /// An action of a matched route failed, was dropped, or was kept in the spool for later.
        case failure
        /// No route matched the tag.
        case noMatch = "no_match"
        /// A matched route asks `known: false` and the tag is not in `tags:` (the "rejected" route).
        case refused
    }

    /// Which command set the reader understands.
    public enum Model: String, Sendable, Equatable, CaseIterable {
        /// From the reader's name (`ACS ACR122U …`, `ACS ACR1252 …`, `ACS ACR1552 …`); none for others.
        case auto
        case acr122u
        case acr1252u
        case acr1552u
        /// The reader gets no LED/buzzer commands.
        case none
    }

    public var model: Model
    /// Per moment, what to show; a moment without a pattern shows nothing.
    public var patterns: [Moment: FeedbackPattern]
    /// What the host plays for each moment (any reader, libnfc ones too); nil: no sound.
    public var sound: FeedbackSound?

    public init(model: Model = .none, patterns: [Moment: FeedbackPattern] = [:], sound: FeedbackSound? = nil) {
        self.model = model
        self.patterns = patterns
        self.sound = sound
    }
}

/// One LED/buzzer pattern: `blinks` times the LED of `color` on for `on` (with
/// the buzzer when `beep`), then off for `off`.
public struct FeedbackPattern: Sendable, Equatable {
    /// The LED colour shown while on.
    public enum Color: String, Sendable, Equatable, CaseIterable {
        case off, red, green, orange
    }

    public var color: Color
    public var blinks: Int
    public var on: Duration
    public var off: Duration
    public var beep: Bool

    public init(color: Color, blinks: Int, on: Duration, off: Duration, beep: Bool) {
        self.color = color
        self.blinks = blinks
        self.on = on
        self.off = off
        self.beep = beep
    }

    /// Whether the pattern shows or sounds anything.
    public var isVisible: Bool { blinks > 0 && (color != .off || beep) }
}

import TagCore

/// A reader kind's access to its field, the one part of the scan loop a driver implements
/// (libnfc: the PN532's polls and selections; PC/SC: pcscd's slot and the card's APDUs; a
/// keyboard-wedge reader: the numbers it types). The shared `FieldScan` owns the rest: the scan
/// model (presence, tap/hold, cooldown, `ignore_on_connect`), reading a tag through its TagKit
/// driver (NDEF, the originality signature), the jobs waiting for a tag, and the events.
///
/// An implementer guarantees: `observe` returns within what `model` asks of it (a look again by
/// `model.nextHoldDue`, and while tags are held by the reader's `poll_interval`, unless the device
/// reports their leaving itself) or when the device fails or is stopped (it throws); a target it
/// returned can be passed to `select` until the next `observe`.
package protocol FieldTransport {
    associatedtype Target: FieldTarget
    associatedtype Failure: Error

    /// Waits as the kind does for something to look at, then looks at the field: the tags in it now,
    /// in the order found, and when that look began; nil when there was nothing to look at
    /// (the scan model is not fed). `model` says what is held and when the next look is due.
    mutating func observe(for model: ScanModel) throws(Failure) -> FieldLook<Target>?
    /// Selects `target` and names it, ready for its TagKit driver to exchange frames with it.
    mutating func select(_ target: Target) -> FieldReach
    /// A failure of the device met while a tag was read (the read went on, with an error): the
    /// scan throws it once the events of the look are out. Nil by default.
    var lost: Failure? { get }
    /// Whether a tag lying still can be reached for a job waiting for "the tag on the reader"
    /// (libnfc); false when only an arriving tag can be (PC/SC, keyboard). False by default.
    var reachesLyingTags: Bool { get }
    /// Whether the first look shows what already lies there (`ignore_on_connect`). True by default;
    /// false for a reader that sees nothing lying still (keyboard: its first number is a tap).
    var seesTagsLyingThere: Bool { get }
    /// Whether the reader sees a tag leave; false: a removal is assumed `exit_delay` after the tag
    /// was last seen, and its `tag.removed` and `tag.tapped` say `removal_assumed`. True by default.
    var seesRemovals: Bool { get }
}

extension FieldTransport {
    package var lost: Failure? { nil }
    package var reachesLyingTags: Bool { false }
    package var seesTagsLyingThere: Bool { true }
    package var seesRemovals: Bool { true }
}

/// One tag a look at the field found, as its transport knows it.
package protocol FieldTarget {
    var uid: TagUID { get }
    /// What the look told about the tag (its UID, what its activation or ATR names): the
    /// arrival's tag when it cannot be read.
    var info: TagInfo { get }
}

/// What one look at the field found.
package struct FieldLook<Target: FieldTarget> {
    package var targets: [Target]
    /// When the look that found them began (the start of a tag's place → `tag.arrived`).
    package var sensed: ContinuousClock.Instant

    package init(_ targets: [Target], sensed: ContinuousClock.Instant) {
        self.targets = targets
        self.sensed = sensed
    }
}

/// How selecting a target went.
package enum FieldReach {
    /// Selected and named: its driver exchanges frames with it.
    case identified(TagInspector.Identified)
    /// It did not answer: it left, or the device failed (`reason` says how; nil: it left).
    case gone(reason: String?)
    /// The reader reaches nothing on a tag (keyboard): the arrival is what the look saw, and
    /// jobs are refused with `reason`.
    case unreachable(reason: String)
}

/// One reader the daemon watches, with its scan settings. The router builds these
/// from the `readers:` section of the config; `tagrouter read`/`watch` build them
/// from `--device`; the reader module scans with them. They live here, in the shared
/// vocabulary, so the router knows reader settings without linking libnfc.
public struct ReaderConfig: Sendable, Equatable {
    /// How the reader waits for a tag when none is in the field.
    public enum Polling: String, Sendable, Equatable, CaseIterable {
        /// PN532 InAutoPoll (`nfc_initiator_poll_target`): the chip polls on its
        /// own and the thread sleeps in `read(2)` until it answers. No CPU while waiting.
        case autoPoll = "auto-poll"
        /// One `nfc_initiator_list_passive_targets` every `pollInterval`, the thread
        /// sleeping in between. Works on every libnfc driver, costs a little CPU.
        case listPassive = "list-passive"
        /// Low latency: one InListPassiveTarget after another with no pause (type A at
        /// every look, FeliCa and Jewel by turns in between), the thread waiting only on
        /// the UART. A tag is seen within milliseconds; costs steady bus traffic and a
        /// little CPU (docs/reader.md "Waiting for a tag").
        case fast
    }

    /// When an arriving NTAG 21x or Ultralight EV1 is asked for its originality
    /// signature (READ_SIG, for `tag.genuine` and `tag.signature`; ~8 ms a tap at 115200 baud).
    public enum SignatureReading: String, Sendable, Equatable, CaseIterable {
        /// When the config uses it: a route matching `genuine`, a template naming
        /// `tag.genuine` or `tag.signature`, a `tags:` entry with `require_genuine`.
        case auto
        case always
        case never
    }

    /// What a reader does when another process holds its device (`DeviceLock`).
    public enum BusyPolicy: String, Sendable, Equatable, CaseIterable {
        /// Logs it once and tries again with the reader's backoff (the daemon's default).
        case wait
        /// Reports it in a `reader.error` event and ends the reader (the one-shot tools' default).
        case exit
    }

    /// The reader's name in events (`"reader": "front-door"`).
    public var name: String
    /// Which reader, in its driver's terms: a libnfc connstring (`pn532_uart:/dev/ttyUSB0`,
    /// `acr122_usb`, a path may be a symlink) or `auto` for the first device libnfc
    /// finds; a device of another driver starts with its scheme (`<scheme>:…`). Which
    /// driver takes it is decided in one place, TagReader's driver registry.
    public var device: String
    /// The same UID arriving again within this long after it left is not reported.
    public var cooldown: Duration
    /// A tag missing for less than this is still "held": brief contact losses
    /// produce no `tag.removed` / `tag.arrived` pair.
    public var exitDelay: Duration
    /// Tags already lying on the reader when it (re)connects fire no `tag.arrived`.
    public var ignoreOnConnect: Bool
    /// A tag that stays this long fires `tag.held`; one that leaves sooner fires
    /// `tag.tapped`. Nil (the default): neither fires.
    public var hold: Duration?
    /// How often a held tag is checked for presence (and, with `.listPassive`,
    /// how often the field is polled while empty).
    public var pollInterval: Duration
    /// How an empty field is watched (libnfc readers; other drivers are told of a tag by their library).
    public var polling: Polling
    /// A reader that makes no progress for this long is aborted and reopened.
    public var watchdog: Duration
    public var ifBusy: BusyPolicy
    /// What the reader shows on a tap and its outcome (readers of a known model whose driver can drive their LEDs); nothing unless set.
    public var feedback = ReaderFeedback()
    /// False: the reader's own beep on detection is turned off, so the only beep is tagrouter's.
    public var beepOnDetect = true
    /// Whether arriving tags that carry an originality signature are asked for it
    /// (`signatureReading` resolved against the config; the one-shot tools always ask).
    public var readsSignature = true
    /// What only this reader's driver reads (its own keys); none: the driver's defaults.
    public var driverSettings = DriverSettings()

    /// Every setting given: their defaults are declared once, in the router's
    /// `readers:` spec (`ReaderConfig.withDefaults(name:device:)` there).
    public init(
        name: String, device: String, cooldown: Duration, exitDelay: Duration, ignoreOnConnect: Bool, hold: Duration?,
        pollInterval: Duration, polling: Polling, watchdog: Duration, ifBusy: BusyPolicy
    ) {
        self.name = name
        self.device = device
        self.cooldown = cooldown
        self.exitDelay = exitDelay
        self.ignoreOnConnect = ignoreOnConnect
        self.hold = hold
        self.pollInterval = pollInterval
        self.polling = polling
        self.watchdog = watchdog
        self.ifBusy = ifBusy
    }
}

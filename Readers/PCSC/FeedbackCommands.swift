import TagCore
import TagReader

/// The bytes a reader model takes for its LEDs and buzzer, as ACS documents them:
/// - ACR122U: the pseudo-APDU `FF 00 40 P2 04 T1 T2 n link` through `SCardTransmit`
///   with a card connected (P2: bits 4/5 the LEDs on during T1, bits 6/7 the LEDs
///   that blink — bit 0 of each pair red, bit 1 green; T1/T2 in 100 ms; `link` 01:
///   the buzzer sounds during T1), and `FF 00 52 00 00` to silence its detection beep.
/// - ACR1252U, ACR1552U: escape commands through `SCardControl(SCARD_CTL_CODE(3500))`,
///   card or not: LED `E0 00 00 29 01 bits` (bit 0 red, bit 1 green), buzzer
///   `E0 00 00 28 01 t` (t in 10 ms), detection behaviour `E0 00 00 21 01 87`
///   (bit 3, the insertion/removal beep, cleared). When the driver refuses
///   escape commands, the ACR122U pseudo-APDUs stand in while a card is connected.
enum FeedbackCommand: Equatable {
    /// A pseudo-APDU through `SCardTransmit` (needs a card connected).
    case apdu([UInt8])
    /// An escape command through `SCardControl`.
    case escape([UInt8])
    /// Waits this long on the feedback thread (between blinks the host times).
    case pause(Duration)

    /// `SCARD_CTL_CODE(3500)`: pcsc-lite's `0x42000000 + code` (the macro is not imported).
    static let escapeControlCode: UInt32 = 0x4200_0000 + 3500

    /// The model `configured` means for a reader named `readerName` (`auto` reads the name).
    static func resolve(_ configured: ReaderFeedback.Model, readerName: String) -> ReaderFeedback.Model {
        guard configured == .auto else { return configured }
        let name = readerName.uppercased()
        if name.contains("ACR122") { return .acr122u }
        if name.contains("ACR1252") { return .acr1252u }
        if name.contains("ACR1552") { return .acr1552u }
        return .none
    }

    /// Whether the model is driven through escape commands.
    static func usesEscape(_ model: ReaderFeedback.Model) -> Bool { model == .acr1252u || model == .acr1552u }

    /// What shows `pattern` on `model`; `escape: false` gives the card-present pseudo-APDU form.
    static func show(_ pattern: FeedbackPattern, on model: ReaderFeedback.Model, escape: Bool) -> [FeedbackCommand] {
        guard pattern.isVisible, model != .none, model != .auto else { return [] }
        guard usesEscape(model) && escape else { return [.apdu(acr122uPattern(pattern))] }
        var commands: [FeedbackCommand] = []
        let count = min(pattern.blinks, 20)
        for blink in 0..<count {
            commands.append(.escape([0xE0, 0x00, 0x00, 0x29, 0x01, ledBits(pattern.color)]))
            if pattern.beep { commands.append(.escape([0xE0, 0x00, 0x00, 0x28, 0x01, units(pattern.on, of: 10)])) }
            commands.append(.pause(pattern.on))
            commands.append(.escape([0xE0, 0x00, 0x00, 0x29, 0x01, 0x00]))
            if blink < count - 1 { commands.append(.pause(pattern.off)) }
        }
        return commands
    }

    /// What turns `model`'s own detection beep off.
    static func silenceDetection(on model: ReaderFeedback.Model, escape: Bool) -> [FeedbackCommand] {
        switch model {
        case .auto, .none: return []
        case _ where usesEscape(model) && escape: return [.escape([0xE0, 0x00, 0x00, 0x21, 0x01, 0x87])]
        case .acr122u, .acr1252u, .acr1552u: return [.apdu([0xFF, 0x00, 0x52, 0x00, 0x00])]
        }
    }

    private static func acr122uPattern(_ pattern: FeedbackPattern) -> [UInt8] {
        let leds = ledBits(pattern.color)
        let state = leds << 4 | leds << 6
        let t1 = units(pattern.on, of: 100), t2 = units(pattern.off, of: 100)
        return [0xFF, 0x00, 0x40, state, 0x04, t1, t2, UInt8(min(max(pattern.blinks, 1), 255)), pattern.beep ? 0x01 : 0x00]
    }

    /// Bit 0 red, bit 1 green.
    private static func ledBits(_ color: FeedbackPattern.Color) -> UInt8 {
        switch color {
        case .off: 0
        case .red: 1
        case .green: 2
        case .orange: 3
        }
    }

    /// `duration` in units of `unit` milliseconds, 1…255.
    private static func units(_ duration: Duration, of unit: Int64) -> UInt8 {
        UInt8(min(max(duration.milliseconds / unit, 1), 255))
    }
}

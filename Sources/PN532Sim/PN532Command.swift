/// The PN532 command codes the simulator knows (user manual §7), for dispatch and counters.
public enum PN532Command: UInt8, Sendable, CaseIterable {
    case diagnose = 0x00
    case getFirmwareVersion = 0x02
    case getGeneralStatus = 0x04
    case readRegister = 0x06
    case writeRegister = 0x08
    case setParameters = 0x12
    case samConfiguration = 0x14
    case powerDown = 0x16
    case rfConfiguration = 0x32
    case inDataExchange = 0x40
    case inCommunicateThru = 0x42
    case inDeselect = 0x44
    case inListPassiveTarget = 0x4A
    case inRelease = 0x52
    case inSelect = 0x54
    case inAutoPoll = 0x60

    /// The manual's name, e.g. `InListPassiveTarget`; unknown codes read `0xNN`.
    public static func name(of code: UInt8) -> String {
        guard let command = PN532Command(rawValue: code) else {
            return "0x" + (code < 0x10 ? "0" : "") + String(code, radix: 16, uppercase: true)
        }
        let raw = String(describing: command)
        switch command {
        case .samConfiguration: return "SAMConfiguration"
        case .rfConfiguration: return "RFConfiguration"
        default: return raw.prefix(1).uppercased() + raw.dropFirst()
        }
    }
}

/// Error codes the chip puts in the status byte (user manual table 7-4).
enum PN532Status {
    static let ok: UInt8 = 0x00
    static let timeout: UInt8 = 0x01
    static let rfBufferOverflow: UInt8 = 0x09
    static let invalidParameter: UInt8 = 0x10
    static let mifareError: UInt8 = 0x14
    static let notAcceptable: UInt8 = 0x27
}

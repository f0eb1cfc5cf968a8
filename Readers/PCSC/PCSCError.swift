internal import CPCSC

/// A PC/SC call that failed, with pcsc-lite's code and words for it.
public struct PCSCError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The `SCARD_E_*` / `SCARD_W_*` code.
    public let code: UInt32
    /// What was being done (`SCardConnect`).
    public let call: String

    init(_ code: LONG, _ call: String) {
        self.code = UInt32(truncatingIfNeeded: code)
        self.call = call
    }

    public var description: String {
        "\(call): \(String(cString: pcsc_stringify_error(LONG(code)))) (0x\(String(code, radix: 16)))"
    }

    static let cancelled: UInt32 = 0x8010_0002
    static let timeout: UInt32 = 0x8010_000A
    static let noSmartcard: UInt32 = 0x8010_000C
    static let notTransacted: UInt32 = 0x8010_0016
    static let readerUnavailable: UInt32 = 0x8010_0017
    static let noService: UInt32 = 0x8010_001D
    static let serviceStopped: UInt32 = 0x8010_001E
    static let unknownReader: UInt32 = 0x8010_0009
    static let noReadersAvailable: UInt32 = 0x8010_002E
    static let removedCard: UInt32 = 0x8010_0069
    static let resetCard: UInt32 = 0x8010_0068
    static let unresponsiveCard: UInt32 = 0x8010_0066

    /// `SCardCancel` ended the wait: the reader is stopping.
    var isCancelled: Bool { code == Self.cancelled }
    /// The card left the field (or failed mid-exchange, which for a contactless card means the same).
    var isCardGone: Bool { [Self.noSmartcard, Self.removedCard, Self.resetCard, Self.notTransacted, Self.unresponsiveCard].contains(code) }
    /// pcscd or the reader went away: the context must be established again.
    var isReaderGone: Bool { [Self.readerUnavailable, Self.noService, Self.serviceStopped, Self.unknownReader].contains(code) }
}

internal import CPCSC
import Glibc

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
        let words = "\(call): \(String(cString: pcsc_stringify_error(LONG(code)))) (0x\(String(code, radix: 16)))"
        guard let action = refusedAction else { return words }
        return "\(words): pcscd refused \(Self.thisUser) through polkit (action org.debian.pcsc-lite.\(action); "
            + "pcscd's log says \"Rejected unauthorized\"); the tagrouter package lets its user in with "
            + "\(Self.polkitRule): make sure it is there, or give the user this runs as a rule of its own"
    }

    /// Where the package installs the polkit rule that lets the service's user use pcscd (config/polkit/).
    static let polkitRule = "/usr/share/polkit-1/rules.d/60-tagrouter-pcscd.rules"

    /// The polkit action pcscd refused (`access_pcsc` for a context, `access_card` for a card), when pcscd
    /// refused: it then closes the connection unread (`SCardEstablishContext`, which libpcsclite reports as a
    /// reset connection, `SCARD_W_SECURITY_VIOLATION`) or answers `SCardConnect` with that code.
    var refusedAction: String? {
        guard code == Self.securityViolation else { return nil }
        return call == "SCardConnect" ? "access_card" : "access_pcsc"
    }

    /// `user 'tagrouter' (uid 999)`: whom pcscd refused.
    private static var thisUser: String {
        let uid = geteuid()
        var buffer = [CChar](repeating: 0, count: 4096)
        let name = buffer.withUnsafeMutableBufferPointer { buffer -> String? in
            var entry = passwd()
            var found: UnsafeMutablePointer<passwd>?
            guard let base = buffer.baseAddress, getpwuid_r(uid, &entry, base, buffer.count, &found) == 0, found != nil,
                  let name = entry.pw_name else { return nil }
            return String(cString: name)
        }
        return name.map { "user '\($0)' (uid \(uid))" } ?? "uid \(uid)"
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
    static let securityViolation: UInt32 = 0x8010_006A

    /// `SCardCancel` ended the wait: the reader is stopping.
    var isCancelled: Bool { code == Self.cancelled }
    /// The card left the field (or failed mid-exchange, which for a contactless card means the same).
    var isCardGone: Bool { [Self.noSmartcard, Self.removedCard, Self.resetCard, Self.notTransacted, Self.unresponsiveCard].contains(code) }
    /// pcscd or the reader went away: the context must be established again.
    var isReaderGone: Bool { [Self.readerUnavailable, Self.noService, Self.serviceStopped, Self.unknownReader].contains(code) }
}

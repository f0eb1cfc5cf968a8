import CNFC
import TagCore
import TagReader

/// A tag as libnfc reports it after activation: what anticollision, RATS or
/// FeliCa polling told the reader before any command was sent to the tag.
public struct NFCTarget: Sendable, Equatable {
    /// How the tag was reached.
    public enum Modulation: Sendable, Equatable, CaseIterable {
        /// ISO/IEC 14443-A at 106 kbit/s: Type 2, Type 4, MIFARE Classic.
        case iso14443A
        /// FeliCa at 212 kbit/s: Type 3.
        case felica
        /// Innovision Jewel / Topaz: Type 1.
        case jewel
    }

    public var modulation: Modulation
    /// NFCID1 (type A), IDm (FeliCa), or the UID bytes the reader reports (Jewel).
    public var uid: TagUID
    /// SENS_RES (ATQA) for type A and Jewel, empty for FeliCa.
    public var atqa: [UInt8]
    /// SEL_RES (SAK) for type A.
    public var sak: UInt8?
    /// The answer to select (RATS) of an ISO-DEP tag, empty otherwise.
    public var ats: [UInt8]
    /// The system code a FeliCa tag answered polling with (`12 FC`: NFC Forum Type 3).
    public var systemCode: [UInt8]

    public init(
        modulation: Modulation = .iso14443A, uid: TagUID, atqa: [UInt8], sak: UInt8? = nil, ats: [UInt8] = [],
        systemCode: [UInt8] = []
    ) {
        self.modulation = modulation
        self.uid = uid
        self.atqa = atqa
        self.sak = sak
        self.ats = ats
        self.systemCode = systemCode
    }

    /// Nil for a modulation tagrouter does not poll.
    init?(_ target: nfc_target) {
        switch target.nm.nmt {
        case NMT_ISO14443A:
            var info = target.nti.nai
            let uidLength = min(info.szUidLen, 10)
            let atsLength = min(info.szAtsLen, 254)
            self.init(
                uid: TagUID(bytes: withUnsafeBytes(of: &info.abtUid) { Array($0.prefix(uidLength)) }),
                atqa: [info.abtAtqa.0, info.abtAtqa.1], sak: info.btSak,
                ats: withUnsafeBytes(of: &info.abtAts) { Array($0.prefix(atsLength)) })
        case NMT_FELICA:
            var info = target.nti.nfi
            self.init(
                modulation: .felica, uid: TagUID(bytes: withUnsafeBytes(of: &info.abtId) { Array($0) }), atqa: [],
                systemCode: [info.abtSysCode.0, info.abtSysCode.1])
        case NMT_JEWEL:
            var info = target.nti.nji
            self.init(
                modulation: .jewel, uid: TagUID(bytes: withUnsafeBytes(of: &info.btId) { Array($0) }),
                atqa: [info.btSensRes.0, info.btSensRes.1])
        default:
            return nil
        }
    }
}

extension NFCTarget.Modulation {
    /// libnfc's modulation and baud rate.
    var libnfc: nfc_modulation {
        switch self {
        case .iso14443A: return nfc_modulation(nmt: NMT_ISO14443A, nbr: NBR_106)
        case .felica: return nfc_modulation(nmt: NMT_FELICA, nbr: NBR_212)
        case .jewel: return nfc_modulation(nmt: NMT_JEWEL, nbr: NBR_106)
        }
    }

    /// What selection sends: a FeliCa polling request for any system code, asking
    /// for the system code back (libnfc's own default); nothing for the others.
    var initiatorData: [UInt8] {
        self == .felica ? [0x00, 0xFF, 0xFF, 0x01, 0x00] : []
    }

    /// How many tags of this kind one inventory can tell apart: FeliCa and Jewel
    /// have no halt state, so libnfc lists one of them at a time.
    var inventoryLimit: Int { self == .iso14443A ? 2 : 1 }
}

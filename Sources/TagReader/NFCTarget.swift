import CNFC
import TagCore

/// An ISO/IEC 14443-A target as libnfc reports it: what anticollision and RATS told
/// the reader before any command was sent to the tag.
public struct NFCTarget: Sendable, Equatable {
    public var uid: TagUID
    public var atqa: [UInt8]
    public var sak: UInt8
    /// The answer to select (RATS) of an ISO-DEP tag, empty otherwise.
    public var ats: [UInt8]

    public init(uid: TagUID, atqa: [UInt8], sak: UInt8, ats: [UInt8] = []) {
        self.uid = uid
        self.atqa = atqa
        self.sak = sak
        self.ats = ats
    }

    init(_ target: nfc_target) {
        var info = target.nti.nai
        let uidLength = min(info.szUidLen, 10)
        let atsLength = min(info.szAtsLen, 254)
        uid = TagUID(bytes: withUnsafeBytes(of: &info.abtUid) { Array($0.prefix(uidLength)) })
        atqa = [info.abtAtqa.0, info.abtAtqa.1]
        sak = info.btSak
        ats = withUnsafeBytes(of: &info.abtAts) { Array($0.prefix(atsLength)) }
    }
}

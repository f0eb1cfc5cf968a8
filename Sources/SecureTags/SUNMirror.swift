import TagCore
import TagCrypto

/// What an NTAG 424 DNA with SDM on writes into its URL at a read: the
/// encrypted PICC data (UID and read counter under K_SDMMetaRead) and the
/// SDMMAC (under the tag's K_SDMFileRead, over an empty MAC input), each as
/// uppercase hex. The simulator's tag model mirrors with it; `SUNVerifier`
/// checks the same `PICCData` and `SUNSession`.
public struct SUNMirror: Sendable {
    /// The tag's UID (7 bytes).
    public let uid: [UInt8]
    private let metaReadKey: [UInt8]
    /// The tag's own K_SDMFileRead (diversified already when the keys say so).
    private let fileReadKey: [UInt8]

    /// The mirror of the tag with `uid` personalised with `keys`.
    public init(keys: SUNKeys, uid: [UInt8]) throws(DiversificationError) {
        self.uid = uid
        metaReadKey = keys.metaRead
        fileReadKey = try keys.fileReadKey(uid: uid)
    }

    /// The ASCII of the PICC data (32 hex digits) and of the SDMMAC (16) for the read with `counter`;
    /// `padding` is the 5 bytes the tag fills the PICC data block with.
    public func mirror(counter: Int, padding: [UInt8]) throws(CryptoError) -> (piccData: [UInt8], mac: [UInt8]) {
        let picc = try PICCData.encrypt(uid: uid, counter: counter, metaReadKey: metaReadKey, padding: padding)
        let mac = try SUNSession(fileReadKey: fileReadKey, uid: uid, counter: counter).mac(over: [])
        return (Self.ascii(picc), Self.ascii(mac))
    }

    private static func ascii(_ bytes: [UInt8]) -> [UInt8] { Array(TagUID(bytes: bytes).hex.uppercased().utf8) }
}

import TagCrypto

/// The AES-128 keys a tag's SDM settings name: the meta read key decrypts the
/// PICC data, the file read key makes the MAC (and decrypts file data). Several
/// sets may be configured (tags from different batches); a tag is checked
/// against the set whose meta key decrypts its PICC data.
public struct SUNKeys: Sendable, Equatable {
    /// A name for logs and `check-config` (the key files' id, never the key).
    public var id: String
    /// K_SDMMetaRead, 16 bytes.
    public var metaRead: [UInt8]
    /// K_SDMFileRead, 16 bytes — or, with `diversification`, the master key each tag's is derived from.
    public var fileRead: [UInt8]
    /// How each tag's K_SDMFileRead is derived from `fileRead` and its UID; nil: every tag uses `fileRead`.
    public var diversification: SUNKeyDiversification?

    public init(id: String, metaRead: [UInt8], fileRead: [UInt8], diversification: SUNKeyDiversification? = nil) {
        self.id = id
        self.metaRead = metaRead
        self.fileRead = fileRead
        self.diversification = diversification
    }

    /// The K_SDMFileRead of the tag with `uid`.
    public func fileReadKey(uid: [UInt8]) throws(DiversificationError) -> [UInt8] {
        guard let diversification else { return fileRead }
        return try diversification.key(master: fileRead, uid: uid)
    }
}

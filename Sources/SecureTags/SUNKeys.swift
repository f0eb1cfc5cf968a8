/// The AES-128 keys a tag's SDM settings name: the meta read key decrypts the
/// PICC data, the file read key makes the MAC (and decrypts file data). Several
/// sets may be configured (tags from different batches); a tag is checked
/// against the set whose meta key decrypts its PICC data.
public struct SUNKeys: Sendable, Equatable {
    /// A name for logs and `check-config` (the key files' id, never the key).
    public var id: String
    /// K_SDMMetaRead, 16 bytes.
    public var metaRead: [UInt8]
    /// K_SDMFileRead, 16 bytes.
    public var fileRead: [UInt8]

    public init(id: String, metaRead: [UInt8], fileRead: [UInt8]) {
        self.id = id
        self.metaRead = metaRead
        self.fileRead = fileRead
    }
}

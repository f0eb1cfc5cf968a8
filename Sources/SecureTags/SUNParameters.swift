/// Where a SUN message's parts sit in a tag's URL: the names of the query
/// parameters the tag mirrors its data into (NTAG 424 DNA SDM settings). Each
/// part may go by several names; the first present is used.
public struct SUNParameters: Sendable, Equatable {
    /// The encrypted PICC data (UID and read counter), 32 hex digits.
    public var piccData: [String]
    /// The SDMMAC, 16 hex digits.
    public var cmac: [String]
    /// The encrypted file data, a multiple of 32 hex digits (optional).
    public var encryptedData: [String]
    /// The UID mirrored in the clear, 14 hex digits (plain mirroring).
    public var uid: [String]
    /// The read counter mirrored in the clear, 6 hex digits, most significant first (plain mirroring).
    public var counter: [String]

    /// NXP's names (AN12196 and its reference back end) and their short forms.
    public static let standard = SUNParameters(
        piccData: ["picc_data", "e"], cmac: ["cmac", "c"], encryptedData: ["enc"], uid: ["uid"], counter: ["ctr"])

    public init(piccData: [String], cmac: [String], encryptedData: [String], uid: [String], counter: [String]) {
        self.piccData = piccData
        self.cmac = cmac
        self.encryptedData = encryptedData
        self.uid = uid
        self.counter = counter
    }
}

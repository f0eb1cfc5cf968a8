import TagCrypto

/// Per-tag K_SDMFileRead keys (NXP AN10922): each tag's key is diversified from
/// a master key with M = UID ‖ AID ‖ system identifier, so a key read out of
/// one tag opens no other. K_SDMMetaRead stays shared: the UID it hides is the
/// diversification input.
public struct SUNKeyDiversification: Sendable, Equatable {
    /// The AID part of M (may be empty).
    public var applicationID: [UInt8]
    /// The system identifier part of M (may be empty), e.g. a name's ASCII bytes.
    public var systemIdentifier: [UInt8]

    /// With a 7-byte UID, AID and system identifier together may hold this many bytes.
    public static let maximumExtraBytes = KeyDiversification.maximumInputBytes - 7

    public init(applicationID: [UInt8] = [], systemIdentifier: [UInt8] = []) {
        self.applicationID = applicationID
        self.systemIdentifier = systemIdentifier
    }

    /// The key of the tag with `uid`, diversified from `master`.
    public func key(master: [UInt8], uid: [UInt8]) throws(DiversificationError) -> [UInt8] {
        try KeyDiversification.aes128(master: master, input: uid + applicationID + systemIdentifier)
    }
}

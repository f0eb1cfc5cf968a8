/// Why a Type 2 tag's data area holds no readable NDEF message, or why a message
/// does not fit one. Kinds are named as in the `type2-memory.json` vectors.
public struct Type2Error: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// CC byte 0 is not E1.
        case notNDEFFormatted = "not-ndef-formatted"
        /// The mapping version's major number is not 1.
        case unsupportedVersion = "unsupported-version"
        /// The TLV area has no NDEF Message TLV.
        case noNDEFTLV = "no-ndef-tlv"
        /// A TLV's length field is cut off by the end of the area.
        case truncatedTLV = "truncated-tlv"
        /// The NDEF Message TLV's value runs past the end of the area.
        case ndefTLVOverflow = "ndef-tlv-overflow"
        /// The message does not fit the tag.
        case messageTooLarge = "message-too-large"
        /// The memory image is too short for its header or CC, or a UID has the wrong length.
        case badImage = "bad-image"
    }

    public var kind: Kind
    /// Byte offset in the area (or image) where the problem was found.
    public var offset: Int
    /// One sentence for a person.
    public var detail: String
    /// For a problem caused only by the area ending (a cut-off length, an NDEF TLV
    /// running past the end, no NDEF TLV yet): how many bytes from the start of the
    /// area the walk needs to go on. Lets a reader fetch a tag's memory in steps
    /// instead of all of it; nil for every other problem.
    public var areaNeeded: Int?

    public init(_ kind: Kind, at offset: Int, _ detail: String, areaNeeded: Int? = nil) {
        self.kind = kind
        self.offset = offset
        self.detail = detail
        self.areaNeeded = areaNeeded
    }

    /// `at byte 18: NDEF TLV length 128 runs past the end of the 48-byte data area`.
    public var description: String { "at byte \(offset): \(detail)" }
}

/// The Capability Container of a Type 2 tag (page 3): magic `E1`, mapping version,
/// data area size in units of 8 bytes, and access conditions.
public struct Type2CapabilityContainer: Sendable, Equatable {
    /// `E1` on an NDEF-formatted tag.
    public var magic: UInt8
    /// Mapping version: major in the high nibble, minor in the low (`10` is 1.0).
    public var version: UInt8
    /// Bytes of the data area: CC byte 2 × 8.
    public var dataAreaSize: Int
    /// The access byte (`00` read/write, `0F` read-only).
    public var access: UInt8

    /// True when the access byte forbids writing.
    public var readOnly: Bool { access & 0x0F != 0 }

    public init(dataAreaSize: Int, readOnly: Bool = false) {
        magic = 0xE1
        version = 0x10
        self.dataAreaSize = dataAreaSize
        access = readOnly ? 0x0F : 0x00
    }

    /// Reads and checks the 4 CC bytes.
    public init(bytes: [UInt8]) throws(Type2Error) {
        guard bytes.count >= 4 else { throw Type2Error(.badImage, at: 0, "the Capability Container needs 4 bytes, got \(bytes.count)") }
        guard bytes[0] == 0xE1 else {
            throw Type2Error(.notNDEFFormatted, at: 0, "CC magic is 0x\(Hex.string([bytes[0]])), not 0xe1: the tag is not NDEF formatted")
        }
        guard bytes[1] >> 4 == 1 else {
            throw Type2Error(.unsupportedVersion, at: 1, "mapping version \(bytes[1] >> 4).\(bytes[1] & 0x0F) is not supported (major version must be 1)")
        }
        magic = bytes[0]
        version = bytes[1]
        dataAreaSize = Int(bytes[2]) * 8
        access = bytes[3]
    }

    /// The 4 CC bytes.
    public var bytes: [UInt8] { [magic, version, UInt8(truncatingIfNeeded: dataAreaSize / 8), access] }
}

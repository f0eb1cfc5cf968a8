import NDEF

/// Reads NFC Forum Type 5 tags (ISO 15693: ICODE SLIX, SLIX2, ST25DV, …): the
/// Capability Container in block 0 (4 bytes, or 8 when its MLEN byte is 0), then
/// the TLV area after it, block by block with READ SINGLE BLOCK (`02 20 block`;
/// EXTENDED READ SINGLE BLOCK `02 30 lo hi` past block 255 on an `E2` tag), only
/// as far as the NDEF TLV reaches. The answer's first byte is ISO 15693's response
/// flags; the block size is what a block read returns. Writing is not offered yet.
public struct Type5Driver: NDEFTagDriver {
    public let transport: any TagTransport
    /// The type `TagIdentity` gave (`icode-slix`, `iso15693`, …).
    public let tagType: String

    /// Flags of every command: high data rate, non-addressed (any tag in the field answers).
    static let requestFlags: UInt8 = 0x02

    public init(transport: any TagTransport, tagType: String) {
        self.transport = transport
        self.tagType = tagType
    }

    /// What the Capability Container says.
    struct CapabilityContainer {
        /// 4 or 8.
        var length: Int
        /// Bytes of the TLV area after the CC.
        var dataAreaSize: Int
        var writable: Bool
        /// `E2`: blocks past 255 are reached with the extended commands.
        var twoByteAddresses: Bool
    }

    public func read() throws(TagDriverError) -> NDEFTagContent {
        var bytes = try readBlock(0)
        let blockSize = bytes.count
        guard blockSize >= 4 else { throw .unexpectedAnswer("block 0 has \(blockSize) bytes; a Type 5 block has at least 4") }
        if bytes[2] == 0, bytes.count < 8 { bytes += try readBlock(1) }
        let cc = try Self.capabilityContainer(bytes)
        var area = Array(bytes.dropFirst(cc.length).prefix(cc.dataAreaSize))
        while area.count < cc.dataAreaSize, let needed = NDEFTagContent.tlvAreaNeeded(area) {
            while area.count < min(needed, cc.dataAreaSize) {
                let block = (cc.length + area.count) / blockSize
                guard block <= (cc.twoByteAddresses ? 0xFFFF : 0xFF) else {
                    throw .malformed("the CC claims \(cc.dataAreaSize) bytes, past the last block a 1-byte address reaches")
                }
                do {
                    area += try readBlock(block)
                } catch .transport(.refused) {
                    throw .malformed("block \(block) cannot be read: the CC claims \(cc.dataAreaSize) bytes, more than the tag holds")
                }
            }
        }
        return try NDEFTagContent(
            tlvArea: Array(area.prefix(cc.dataAreaSize)), dataAreaSize: cc.dataAreaSize, writable: cc.writable, offset: cc.length,
            place: "the T5T area")
    }

    public func write(message: [UInt8]) throws(TagDriverError) {
        throw .unsupported("writing a \(TagDriverError.displayName(tagType)) (NFC Forum Type 5) is not supported yet")
    }

    public func lock() throws(TagDriverError) {
        throw .unsupported("locking a \(TagDriverError.displayName(tagType)) (NFC Forum Type 5) is not supported yet")
    }

    /// Checks the CC bytes (block 0, and block 1 for an 8-byte CC).
    static func capabilityContainer(_ bytes: [UInt8]) throws(TagDriverError) -> CapabilityContainer {
        guard bytes[0] == 0xE1 || bytes[0] == 0xE2 else {
            throw .notFormatted("block 0 starts with 0x\(Hex.string([bytes[0]])), not the Capability Container's E1 or E2")
        }
        guard bytes[1] >> 6 == 1 else {
            throw .notFormatted("Capability Container mapping version \(bytes[1] >> 6).\(bytes[1] >> 4 & 0x03) is not supported (major version must be 1)")
        }
        guard bytes[1] >> 2 & 0x03 == 0 else { throw .unsupported("the Capability Container denies read access (0x\(Hex.string([bytes[1]])))") }
        let length = bytes[2] == 0 ? 8 : 4
        guard bytes.count >= length else { throw .unexpectedAnswer("an 8-byte Capability Container was cut off after \(bytes.count) bytes") }
        // MLEN counts 8-byte units of the whole area, CC included (as NXP formats ICODE tags).
        let units = length == 4 ? Int(bytes[2]) : Int(bytes[6]) << 8 | Int(bytes[7])
        return CapabilityContainer(
            length: length, dataAreaSize: max(0, units * 8 - length), writable: bytes[1] & 0x03 == 0, twoByteAddresses: bytes[0] == 0xE2)
    }

    /// One block's bytes, the response flags byte taken off; a tag's error response is `.refused`.
    private func readBlock(_ block: Int) throws(TagDriverError) -> [UInt8] {
        let command: [UInt8] =
            block <= 0xFF
            ? [Self.requestFlags, 0x20, UInt8(block)]
            : [Self.requestFlags, 0x30, UInt8(block & 0xFF), UInt8(block >> 8)]
        let answer = try transport.exchange(command)
        guard let flags = answer.first else { throw .unexpectedAnswer("no response flags to READ SINGLE BLOCK \(block)") }
        guard flags & 0x01 == 0 else { throw .transport(.refused(status: answer)) }
        return Array(answer.dropFirst())
    }
}

/// A Type 2 tag's memory as READ returns it, pages from 0: UID and its check bytes
/// (pages 0–2), the Capability Container (page 3), the data area from page 4, and
/// on NTAG the configuration pages at the end.
public enum Type2Memory {
    /// Offset of the data area: page 4.
    public static let dataAreaOffset = 16

    /// Reads the CC and walks the TLVs of the data area it describes. Offsets in
    /// errors and in the result count from the start of the image.
    public static func parse(image: [UInt8]) throws(Type2Error) -> (cc: Type2CapabilityContainer, content: Type2TLVContent) {
        guard image.count >= dataAreaOffset else {
            throw Type2Error(.badImage, at: image.count, "a Type 2 memory image needs at least 4 pages (16 bytes), got \(image.count)")
        }
        let cc: Type2CapabilityContainer
        do {
            cc = try Type2CapabilityContainer(bytes: Array(image[12..<16]))
        } catch {
            throw Type2Error(error.kind, at: error.offset + 12, error.detail)
        }
        let end = min(dataAreaOffset + cc.dataAreaSize, image.count)
        do {
            var content = try Type2TLVArea.parse(image[dataAreaOffset..<end])
            content.ndefOffset += dataAreaOffset
            content.tlvs = content.tlvs.map {
                Type2TLV(tag: $0.tag, offset: $0.offset + dataAreaOffset, valueOffset: $0.valueOffset + dataAreaOffset, length: $0.length)
            }
            return (cc, content)
        } catch {
            throw Type2Error(error.kind, at: error.offset + dataAreaOffset, error.detail)
        }
    }

    /// A full memory image of a fresh `tagType` tag with the 7-byte `uid`, holding
    /// `message` in an NDEF TLV followed by a Terminator.
    public static func image(uid: [UInt8], tagType: Type2TagType, message: [UInt8], readOnly: Bool = false) throws(Type2Error) -> [UInt8] {
        guard uid.count == 7 else { throw Type2Error(.badImage, at: 0, "a Type 2 UID has 7 bytes, got \(uid.count)") }
        let area = try Type2TLVArea.build(message: message, dataAreaSize: tagType.dataAreaSize)
        let lock: UInt8 = readOnly ? 0xFF : 0x00
        var image = [uid[0], uid[1], uid[2], 0x88 ^ uid[0] ^ uid[1] ^ uid[2]]
        image += uid[3...6]
        image += [uid[3] ^ uid[4] ^ uid[5] ^ uid[6], 0x48, lock, lock]
        image += Type2CapabilityContainer(dataAreaSize: tagType.dataAreaSize, readOnly: readOnly).bytes
        image += area
        let configuration = tagType.configurationPages
        image += [UInt8](repeating: 0, count: tagType.pageCount * 4 - image.count - configuration.count)
        image += configuration
        return image
    }
}

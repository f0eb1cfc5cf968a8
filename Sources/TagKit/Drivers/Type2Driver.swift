import NDEF

/// Reads and writes NFC Forum Type 2 tags (NTAG21x, MIFARE Ultralight): the CC
/// in page 3, the TLV data area from page 4 (FAST_READ on chips that have it,
/// READ otherwise), writes page by page in the NFC Forum order (NDEF TLV
/// length 0, message, real length) with a read-back check.
public struct Type2Driver: NDEFTagDriver {
    /// FAST_READ pages per command: 240 bytes fit the PN532's 262-byte frame buffer.
    static let fastReadPages = 60

    public let transport: any TagTransport
    /// The type `TagIdentity` gave (`ntag215`, `mifare-ultralight`, …).
    public let tagType: String

    public init(transport: any TagTransport, tagType: String) {
        self.transport = transport
        self.tagType = tagType
    }

    public func read() throws(TagDriverError) -> NDEFTagContent {
        let (cc, head) = try capabilityContainer()
        let area = try readThroughNDEFTLV(dataAreaSize: cc.dataAreaSize, head: head)
        return try NDEFTagContent(
            tlvArea: area, dataAreaSize: cc.dataAreaSize, writable: !cc.readOnly, offset: Type2Memory.dataAreaOffset,
            place: "the data area")
    }

    /// The data area from its start to the end of the NDEF TLV (or all of it when
    /// the TLVs are damaged or hold no message): at 115200 baud the whole area of
    /// an NTAG216 takes ~100 ms to read, while a typical message is a few pages.
    private func readThroughNDEFTLV(dataAreaSize: Int, head: [UInt8]) throws(TagDriverError) -> [UInt8] {
        var area = Array(head.prefix(dataAreaSize))
        while area.count < dataAreaSize, let needed = NDEFTagContent.tlvAreaNeeded(area) {
            // Whole pages, at least four at a time.
            let size = min(dataAreaSize, (max(needed, area.count + 16) + 3) / 4 * 4)
            area = try readDataArea(size: size, head: area)
        }
        return area
    }

    public func write(message: [UInt8]) throws(TagDriverError) {
        let (cc, _) = try capabilityContainer()
        guard !cc.readOnly else { throw .readOnly(tagType: tagType) }
        let capacity = Type2TLVArea.capacity(dataAreaSize: cc.dataAreaSize)
        guard message.count <= capacity else { throw .doesNotFit(size: message.count, capacity: capacity, tagType: tagType) }
        let area: [UInt8]
        do {
            area = try Type2TLVArea.build(message: message, dataAreaSize: cc.dataAreaSize)
        } catch {
            throw .doesNotFit(size: message.count, capacity: capacity, tagType: tagType)
        }
        // Only the pages up to the Terminator change; the rest of the area is left as it was.
        let used = min(area.count, (message.count < 0xFF ? 2 : 4) + message.count + 1)
        let pages = (used + 3) / 4
        let page = { (index: Int) in Array(area[(index * 4)..<(index * 4 + 4)]) }
        var first = page(0)
        first.replaceSubrange(1..<(message.count < 0xFF ? 2 : 4), with: message.count < 0xFF ? [0] : [0xFF, 0, 0])
        try writePage(4, first)
        for index in 1..<pages { try writePage(4 + index, page(index)) }
        try writePage(4, page(0))
        let written = try readDataArea(size: pages * 4, head: [])
        if let offset = written.indices.first(where: { written[$0] != area[$0] }) {
            throw .verifyFailed(offset: Type2Memory.dataAreaOffset + offset)
        }
    }

    public func lock() throws(TagDriverError) {
        let (cc, _) = try capabilityContainer()
        try writePage(3, Type2CapabilityContainer(dataAreaSize: cc.dataAreaSize, readOnly: true).bytes)
        if let type = Type2TagType(name: tagType), type != .ultralight {
            try writePage(type.pageCount - 5, [0xFF, 0xFF, 0xFF, 0x00])
        }
        try writePage(2, [0x00, 0x00, 0xFF, 0xFF])
        guard try capabilityContainer().cc.readOnly else { throw .verifyFailed(offset: 15) }
    }

    /// Bytes of data area that one-byte page numbers reach (pages 4…255).
    static let addressableDataArea = (256 - 4) * 4

    /// The CC (page 3) and the 12 data-area bytes the same READ returned.
    private func capabilityContainer() throws(TagDriverError) -> (cc: Type2CapabilityContainer, head: [UInt8]) {
        let pages = try transport.exchange([0x30, 0x03], expecting: 16)
        let cc: Type2CapabilityContainer
        do {
            cc = try Type2CapabilityContainer(bytes: Array(pages[0..<4]))
        } catch {
            throw .notFormatted("capability container (page 3) \(error.detail)")
        }
        guard cc.dataAreaSize <= Self.addressableDataArea else {
            throw .malformed("the CC (byte 14) announces a \(cc.dataAreaSize)-byte data area; READ reaches \(Self.addressableDataArea)")
        }
        return (cc, Array(pages[4...]))
    }

    /// `size` bytes of the data area from page 4, `head` being what was already read.
    private func readDataArea(size: Int, head: [UInt8]) throws(TagDriverError) -> [UInt8] {
        var area = Array(head.prefix(size))
        while area.count < size {
            let page = 4 + area.count / 4
            let remainingPages = (size - area.count + 3) / 4
            if TagIdentity.supportsFastRead(tagType) {
                let count = min(remainingPages, Self.fastReadPages)
                area += try transport.exchange([0x3A, UInt8(page), UInt8(page + count - 1)], expecting: count * 4)
            } else {
                area += try transport.exchange([0x30, UInt8(page)], expecting: 16)
            }
        }
        return Array(area.prefix(size))
    }

    /// The 32-byte originality signature READ_SIG (`3C 00`) answers (NTAG 21x, Ultralight EV1).
    public func originalitySignature() throws(TagDriverError) -> [UInt8] {
        try transport.exchange([0x3C, 0x00], expecting: 32)
    }

    func writePage(_ page: Int, _ data: [UInt8]) throws(TagDriverError) {
        _ = try transport.exchange([0xA2, UInt8(page)] + data)
    }
}

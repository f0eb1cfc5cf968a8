import NDEF

/// Reads and writes NFC Forum Type 1 (Topaz) tags in the static memory layout:
/// RALL gives all 120 bytes, the CC at bytes 8–11 and the TLV data area from
/// byte 12; writes go byte by byte (WRITE-E), the NDEF TLV's length last.
public struct Type1Driver: NDEFTagDriver {
    public let transport: any TagTransport

    public init(transport: any TagTransport) {
        self.transport = transport
    }

    public func read() throws(TagDriverError) -> NDEFTagContent {
        let memory = try readAll()
        return try NDEFTagContent(tlvArea: Array(memory[Type1Tag.dataArea]), writable: memory[11] & 0x0F == 0,
                                  offset: Type1Tag.dataArea.lowerBound, place: "the data area")
    }

    public func write(message: [UInt8]) throws(TagDriverError) {
        let memory = try readAll()
        guard memory[11] & 0x0F == 0 else { throw .readOnly(tagType: "type1") }
        let capacity = Type2TLVArea.capacity(dataAreaSize: Type1Tag.dataArea.count)
        let area: [UInt8]
        do {
            area = try Type2TLVArea.build(message: message, dataAreaSize: Type1Tag.dataArea.count)
        } catch {
            throw .doesNotFit(size: message.count, capacity: capacity, tagType: "type1")
        }
        let start = Type1Tag.dataArea.lowerBound
        let used = min(area.count, message.count + 3)
        try writeByte(start, area[0])
        try writeByte(start + 1, 0)
        for index in 2..<used where memory[start + index] != area[index] { try writeByte(start + index, area[index]) }
        try writeByte(start + 1, area[1])
        let written = try readAll()
        if let offset = (0..<used).first(where: { written[start + $0] != area[$0] }) {
            throw .verifyFailed(offset: start + offset)
        }
    }

    public func lock() throws(TagDriverError) {
        try writeByte(11, 0x0F)
        try writeByte(0x70, 0xFF)
        try writeByte(0x71, 0xFF)
        guard try readAll()[11] == 0x0F else { throw .verifyFailed(offset: 11) }
    }

    /// The 120 bytes of blocks 0–E, after checking the header and the CC.
    private func readAll() throws(TagDriverError) -> [UInt8] {
        let answer = try transport.exchange([0x00], expecting: 122)
        guard answer[0] & 0xF0 == 0x10 else { throw .unsupported("this Type 1 tag (HR0 \(String(answer[0], radix: 16))) uses the dynamic memory layout, which tagrouter does not read") }
        guard answer[10] == 0xE1 else { throw .notFormatted("capability container (byte 8) starts with \(String(answer[10], radix: 16)), not E1") }
        return Array(answer.dropFirst(2))
    }

    private func writeByte(_ address: Int, _ value: UInt8) throws(TagDriverError) {
        _ = try transport.exchange([0x53, UInt8(address), value], expecting: 1)
    }
}

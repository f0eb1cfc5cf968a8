import NDEF

/// Reads and writes NFC Forum–formatted MIFARE Classic tags: the MAD in sector
/// 0 (public key A0A1A2A3A4A5, CRC checked) names the NDEF sectors (AID 03E1),
/// which are read with the public key D3F7D3F7D3F7 and hold a TLV area like a
/// Type 2 tag's. Authentication goes as the PN532 takes it: `60 block key uid`.
public struct MifareClassicDriver: NDEFTagDriver {
    public let transport: any TagTransport
    /// The UID's last four bytes, which authentication names.
    let authUID: [UInt8]

    public init(transport: any TagTransport, uid: [UInt8]) {
        self.transport = transport
        authUID = Array(uid.suffix(4))
    }

    public func read() throws(TagDriverError) -> NDEFTagContent {
        let layout = try ndefSectors()
        var area: [UInt8] = []
        for sector in layout.sectors { area += try readSector(sector) }
        return try NDEFTagContent(tlvArea: area, writable: layout.writable, offset: 0, place: "the NDEF sectors")
    }

    public func write(message: [UInt8]) throws(TagDriverError) {
        let layout = try ndefSectors()
        guard layout.writable else { throw .readOnly(tagType: "mifare-classic-1k") }
        let size = layout.sectors.count * MAD.ndefSectorBytes
        let capacity = Type2TLVArea.capacity(dataAreaSize: size)
        guard message.count <= capacity else { throw .doesNotFit(size: message.count, capacity: capacity, tagType: "mifare-classic-1k") }
        let area: [UInt8]
        do {
            area = try Type2TLVArea.build(message: message, dataAreaSize: size)
        } catch {
            throw .doesNotFit(size: message.count, capacity: capacity, tagType: "mifare-classic-1k")
        }
        let used = (message.count < 0xFF ? 2 : 4) + message.count + 1
        let sectorsUsed = min(layout.sectors.count, (used + MAD.ndefSectorBytes - 1) / MAD.ndefSectorBytes)
        for (index, sector) in layout.sectors.prefix(sectorsUsed).enumerated() {
            let data = area[(index * MAD.ndefSectorBytes)..<((index + 1) * MAD.ndefSectorBytes)]
            try authenticate(sector: sector, key: MAD.ndefKey)
            for block in 0..<3 {
                let bytes = Array(data.dropFirst(block * 16).prefix(16))
                _ = try transport.exchange([0xA0, UInt8(sector * 4 + block)] + bytes)
            }
            let readBack = try readSector(sector)
            if let offset = readBack.indices.first(where: { readBack[$0] != data[data.startIndex + $0] }) {
                throw .verifyFailed(offset: index * MAD.ndefSectorBytes + offset)
            }
        }
    }

    public func lock() throws(TagDriverError) {
        throw .unsupported("making a MIFARE Classic read-only needs its secret key B, which tagrouter does not hold")
    }

    private func authenticate(sector: Int, key: [UInt8]) throws(TagDriverError) {
        do {
            _ = try transport.exchange([0x60, UInt8(sector * 4)] + key + authUID, expecting: 0)
        } catch .transport(.refused) {
            throw .notFormatted("sector \(sector) does not open with the NFC Forum public key")
        }
    }

    private func readSector(_ sector: Int) throws(TagDriverError) -> [UInt8] {
        try authenticate(sector: sector, key: MAD.ndefKey)
        var data: [UInt8] = []
        for block in 0..<3 { data += try transport.exchange([0x30, UInt8(sector * 4 + block)], expecting: 16) }
        return data
    }

    /// The NDEF sectors the MAD lists (the first contiguous run) and whether their GPB allows writing.
    private func ndefSectors() throws(TagDriverError) -> (sectors: [Int], writable: Bool) {
        try authenticate(sector: 0, key: MAD.publicKey)
        let block1 = try transport.exchange([0x30, 0x01], expecting: 16)
        let block2 = try transport.exchange([0x30, 0x02], expecting: 16)
        let trailer = try transport.exchange([0x30, 0x03], expecting: 16)
        guard trailer[9] & 0x80 != 0 else { throw .notFormatted("the General Purpose Byte says there is no MAD") }
        let directory = Array(block1[1...]) + block2
        guard MAD.crc(directory) == block1[0] else { throw .notFormatted("the MAD's CRC does not match") }
        let aids = Array(directory.dropFirst())
        let ndef = (1...15).filter { Array(aids[(($0 - 1) * 2)...].prefix(2)) == MAD.ndefAID }
        guard let first = ndef.first else { throw .notFormatted("the MAD lists no NDEF sector") }
        let sectors = Array((first...15).prefix { ndef.contains($0) })
        try authenticate(sector: first, key: MAD.ndefKey)
        let ndefTrailer = try transport.exchange([0x30, UInt8(first * 4 + 3)], expecting: 16)
        return (sectors, ndefTrailer[9] & 0x03 == 0)
    }
}

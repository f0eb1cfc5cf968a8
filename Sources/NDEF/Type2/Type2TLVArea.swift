/// The TLV format of an NFC Forum Type 2 data area (also used by MIFARE Classic
/// NFC Forum sectors): reading the first NDEF message, and building an area that
/// holds one. Knows nothing of pages or sectors: callers hand it the area's bytes.
public enum Type2TLVArea {
    /// Walks the TLVs from the start of `dataArea` to the first NDEF Message TLV.
    /// NULL TLVs are skipped; Lock Control, Memory Control, Proprietary and unknown
    /// TLVs are skipped by their length.
    public static func parse(_ dataArea: some Collection<UInt8>) throws(Type2Error) -> Type2TLVContent {
        let area = Array(dataArea)
        var tlvs: [Type2TLV] = []
        var index = 0
        while index < area.count {
            let offset = index
            let tag = Type2TLV.Tag(area[index])
            index += 1
            switch tag {
            case .null:
                tlvs.append(Type2TLV(tag: .null, offset: offset, valueOffset: index, length: 0))
                continue
            case .terminator:
                tlvs.append(Type2TLV(tag: .terminator, offset: offset, valueOffset: index, length: 0))
                throw Type2Error(.noNDEFTLV, at: offset, "a Terminator TLV comes before any NDEF Message TLV")
            default:
                break
            }
            guard index < area.count else {
                throw Type2Error(.truncatedTLV, at: offset, "the \(tag.name) TLV's length is cut off by the end of the \(area.count)-byte area", areaNeeded: index + 1)
            }
            var length = Int(area[index])
            index += 1
            if length == 0xFF {
                guard area.count - index >= 2 else {
                    throw Type2Error(.truncatedTLV, at: offset, "the \(tag.name) TLV's 3-byte length is cut off by the end of the \(area.count)-byte area", areaNeeded: index + 2)
                }
                length = Int(area[index]) << 8 | Int(area[index + 1])
                index += 2
            }
            guard area.count - index >= length else {
                let kind: Type2Error.Kind = tag == .ndefMessage ? .ndefTLVOverflow : .truncatedTLV
                throw Type2Error(kind, at: offset, "the \(tag.name) TLV's length \(length) runs past the end of the \(area.count)-byte area", areaNeeded: index + length)
            }
            tlvs.append(Type2TLV(tag: tag, offset: offset, valueOffset: index, length: length))
            if tag == .ndefMessage {
                return Type2TLVContent(tlvs: tlvs, ndefMessage: Array(area[index..<index + length]), ndefOffset: index)
            }
            index += length
        }
        throw Type2Error(.noNDEFTLV, at: area.count, "the \(area.count)-byte area ends without an NDEF Message TLV", areaNeeded: area.count + 1)
    }

    /// The largest message an area of `dataAreaSize` bytes holds (NDEF TLV header
    /// included, Terminator optional).
    public static func capacity(dataAreaSize: Int) -> Int {
        let short = dataAreaSize - 2
        if short < 0xFF { return max(short, 0) }
        return min(max(dataAreaSize - 4, 0xFE), 0xFFFE)
    }

    /// An area of exactly `dataAreaSize` bytes: NDEF Message TLV, a Terminator when
    /// there is room, zeros after it.
    public static func build(message: [UInt8], dataAreaSize: Int) throws(Type2Error) -> [UInt8] {
        let capacity = capacity(dataAreaSize: dataAreaSize)
        guard message.count <= capacity else {
            throw Type2Error(.messageTooLarge, at: 0, "message is \(message.count) bytes, the tag holds \(capacity)")
        }
        var area: [UInt8] = [0x03]
        if message.count < 0xFF {
            area.append(UInt8(message.count))
        } else {
            area += [0xFF, UInt8(message.count >> 8), UInt8(message.count & 0xFF)]
        }
        area += message
        if area.count < dataAreaSize { area.append(0xFE) }
        area += [UInt8](repeating: 0, count: dataAreaSize - area.count)
        return area
    }
}

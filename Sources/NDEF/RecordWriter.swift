/// The record layer of the encoder: MB on the first record, ME on the last, SR
/// exactly when a payload is shorter than 256 bytes, IL exactly when there is an ID,
/// and optional chunking of long payloads.
enum RecordWriter {
    static func encode(_ records: [NDEFRecord], chunkSize: Int?) -> [UInt8] {
        let chunkSize = chunkSize.map { max($0, 1) }
        var size = 0
        for record in records { size += record.type.count + record.id.count + record.payload.count + 7 }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size)
        for (position, record) in records.enumerated() {
            let first = position == 0, last = position == records.count - 1
            guard let chunkSize, record.payload.count > chunkSize else {
                append(record.tnf.rawValue, record.type, record.id, record.payload[...],
                       begin: first, end: last, chunk: false, to: &bytes)
                continue
            }
            var start = 0
            while start < record.payload.count {
                let stop = min(start + chunkSize, record.payload.count)
                let initial = start == 0, final = stop == record.payload.count
                append(initial ? record.tnf.rawValue : TNF.unchanged.rawValue,
                       initial ? record.type : [], initial ? record.id : [], record.payload[start..<stop],
                       begin: first && initial, end: last && final, chunk: !final, to: &bytes)
                start = stop
            }
        }
        return bytes
    }

    private static func append(_ tnf: UInt8, _ type: [UInt8], _ id: [UInt8], _ payload: ArraySlice<UInt8>,
                               begin: Bool, end: Bool, chunk: Bool, to bytes: inout [UInt8]) {
        let short = payload.count < 256
        var flags = tnf
        if begin { flags |= 0x80 }
        if end { flags |= 0x40 }
        if chunk { flags |= 0x20 }
        if short { flags |= 0x10 }
        if !id.isEmpty { flags |= 0x08 }
        bytes.append(flags)
        bytes.append(UInt8(truncatingIfNeeded: type.count))
        if short {
            bytes.append(UInt8(payload.count))
        } else {
            let length = UInt32(truncatingIfNeeded: payload.count)
            bytes += [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
        }
        if !id.isEmpty { bytes.append(UInt8(truncatingIfNeeded: id.count)) }
        bytes += type
        bytes += id
        bytes += payload
    }
}

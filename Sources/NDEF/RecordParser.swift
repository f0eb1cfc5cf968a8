/// The record layer of the decoder: walks the records of a message, checks flags,
/// lengths and chunk sequences, reassembles chunks and, record by record, checks
/// that the payloads of URI, Text and Smart Poster records decode.
///
/// It stops at the first defect and returns the records completed before it, so
/// strict and lenient decoding share one walk.
enum RecordParser {
    struct Outcome {
        var records: [NDEFRecord] = []
        var error: NDEFError?
    }

    /// Shared TYPE arrays for the common well-known types, so decoding them allocates nothing.
    private static let commonTypes: [[UInt8]] = [[0x55], [0x54], SmartPoster.type]

    private static func type(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        if bytes.count <= 2 {
            for common in commonTypes where common.elementsEqual(bytes) { return common }
        }
        return Array(bytes)
    }

    /// Walks a message nested `depth` Smart Posters deep (0 for the tag's own message).
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, depth: Int = 0) -> Outcome {
        var outcome = Outcome()
        outcome.records.reserveCapacity(4)
        guard !bytes.isEmpty else {
            outcome.error = NDEFError(.emptyMessage, at: 0, "the message is empty; the empty NDEF message is D0 00 00")
            return outcome
        }
        let count = bytes.count
        var index = 0
        var recordIndex = 0
        var pending: (record: NDEFRecord, payloadOffset: Int, recordIndex: Int)?
        var ended = false

        func fail(_ kind: NDEFError.Kind, _ offset: Int, _ detail: String) -> Outcome {
            outcome.error = NDEFError(kind, at: offset, record: recordIndex, detail)
            return outcome
        }

        while index < count {
            if ended { return fail(.trailingBytes, index, "\(count - index) bytes follow the record with ME (Message End)") }
            let start = index
            let flags = bytes[index]
            let tnfValue = flags & 0x07
            let messageBegin = flags & 0x80 != 0, messageEnd = flags & 0x40 != 0
            let chunked = flags & 0x20 != 0, short = flags & 0x10 != 0, hasID = flags & 0x08 != 0
            let headerLength = 2 + (short ? 1 : 4) + (hasID ? 1 : 0)
            guard count - start >= headerLength else {
                return fail(.truncatedHeader, start, "the record header needs \(headerLength) bytes, \(count - start) remain")
            }
            let typeLength = Int(bytes[start + 1])
            var payloadLength: Int
            if short {
                payloadLength = Int(bytes[start + 2])
            } else {
                payloadLength = Int(bytes[start + 2]) << 24 | Int(bytes[start + 3]) << 16
                payloadLength |= Int(bytes[start + 4]) << 8 | Int(bytes[start + 5])
            }
            let idLength = hasID ? Int(bytes[start + headerLength - 1]) : 0
            let typeStart = start + headerLength
            let idStart = typeStart + typeLength
            let payloadStart = idStart + idLength
            let end = payloadStart + payloadLength
            guard end <= count else {
                return fail(.truncatedPayload, typeStart,
                            "TYPE, ID and PAYLOAD need \(end - typeStart) bytes, \(count - typeStart) remain")
            }
            if recordIndex == 0, !messageBegin {
                return fail(.missingMessageBegin, start, "the first record lacks the MB (Message Begin) flag")
            }
            if recordIndex > 0, messageBegin {
                return fail(.unexpectedMessageBegin, start, "only the first record may carry the MB (Message Begin) flag")
            }
            guard let tnf = TNF(rawValue: tnfValue) else {
                return fail(.tnfReserved7, start, "TNF 7 is reserved")
            }
            switch tnf {
            case .empty:
                if typeLength > 0 { return fail(.emptyRecordWithType, start + 1, "an empty record (TNF 0) has TYPE_LENGTH \(typeLength); it must be 0") }
                if idLength > 0 { return fail(.emptyRecordWithID, start + headerLength - 1, "an empty record (TNF 0) has ID_LENGTH \(idLength); it must be 0") }
                if payloadLength > 0 { return fail(.emptyRecordWithPayload, start + 2, "an empty record (TNF 0) has PAYLOAD_LENGTH \(payloadLength); it must be 0") }
            case .wellKnown, .mediaType, .absoluteURI, .external:
                if typeLength == 0 && pending == nil { return fail(.missingType, start + 1, "TNF \(tnfValue) needs a TYPE, TYPE_LENGTH is 0") }
            case .unknown:
                if typeLength > 0 { return fail(.unknownRecordWithType, start + 1, "an unknown record (TNF 5) has TYPE_LENGTH \(typeLength); it must be 0") }
            case .unchanged:
                if pending == nil { return fail(.badChunkSequence, start, "TNF 6 (unchanged) outside a chunk sequence") }
            }
            if messageEnd && chunked {
                return fail(.badChunkSequence, start, "the record with ME (Message End) has CF set: the chunk sequence never ends")
            }

            let payload = UnsafeBufferPointer(rebasing: bytes[payloadStart..<end])
            var completed: (record: NDEFRecord, payloadOffset: Int, recordIndex: Int)?
            if var chunk = pending.take() {  // taken out, so appending does not copy the joined payload
                guard tnf == .unchanged, typeLength == 0, !hasID else {
                    return fail(.badChunkSequence, start, "a continuation chunk must have TNF 6, no TYPE and no ID")
                }
                chunk.record.payload.append(contentsOf: payload)
                if chunked {
                    pending = chunk
                } else {
                    completed = chunk
                }
            } else {
                let record = NDEFRecord(tnf: tnf,
                                        type: type(UnsafeBufferPointer(rebasing: bytes[typeStart..<idStart])),
                                        id: Array(UnsafeBufferPointer(rebasing: bytes[idStart..<payloadStart])),
                                        payload: Array(payload))
                if chunked {
                    pending = (record, payloadStart, recordIndex)
                } else {
                    completed = (record, payloadStart, recordIndex)
                }
            }
            if let completed {
                let record = completed.record
                do {
                    try record.checkContent(nestedIn: depth)
                } catch {
                    outcome.error = error.relocated(by: completed.payloadOffset, record: completed.recordIndex)
                    return outcome
                }
                outcome.records.append(record)
            }
            ended = messageEnd
            index = end
            recordIndex += 1
        }
        if !ended {
            outcome.error = NDEFError(.missingMessageEnd, at: count, "the data ends and no record has the ME (Message End) flag")
        }
        return outcome
    }
}

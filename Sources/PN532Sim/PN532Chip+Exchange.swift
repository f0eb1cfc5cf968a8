import TagKit

/// Exchanges with activated tags: InDataExchange, InCommunicateThru, raw ISO-DEP blocks.
extension PN532Chip {
    func targetID(_ tg: UInt8) -> Int? {
        let index = Int(tg & 0x0F) - 1
        return targets.indices.contains(index) ? targets[index] : nil
    }

    /// One exchange with the tag behind `id`, as the chip's status byte plus data.
    mutating func exchange(id: Int, _ command: [UInt8], field: inout RFField) -> (status: UInt8, data: [UInt8], time: Duration) {
        tagExchanges += 1
        guard let index = field.index(of: id), !field.entries[index].halted else {
            tagTimeouts += 1
            return (PN532Status.timeout, [], retryTimeout)
        }
        defer { field.answered(at: index) }
        do throws(TagTransportError) {
            let answer = try field.entries[index].tag.exchange(command)
            let programming = command.first == 0xA2 || command.first == 0xA0 || command.count > 5 && command[1] == 0xD6
            return (PN532Status.ok, answer, pacing.radio(sent: command.count, received: answer.count, programming: programming))
        } catch {
            if case .refused = error {
                return (PN532Status.mifareError, [], pacing.radio(sent: command.count, received: 1, programming: false))
            }
            tagTimeouts += 1
            field.entries[index].tag.reset()
            return (PN532Status.timeout, [], retryTimeout)
        }
    }

    mutating func dataExchange(_ params: [UInt8], field: inout RFField) -> ChipOutcome {
        guard params.count >= 2 else { return .syntaxError }
        guard let id = targetID(params[0]) else { return .reply([PN532Status.notAcceptable], after: .zero) }
        let command = Array(params.dropFirst())
        let mifare = field.index(of: id).map { field.entries[$0].tag.activation }
            .map { !$0.isISODEP && !$0.isJewel && $0.felica == nil } ?? false
        if mifare, command[0] == 0x60 || command[0] == 0x61, command.count != 12 {
            // The chip reads 60/61 as MIFARE authentication and checks its parameters itself.
            return .reply([PN532Status.invalidParameter], after: .zero)
        }
        let result = exchange(id: id, command, field: &field)
        guard result.data.count <= 262 else { return .reply([PN532Status.rfBufferOverflow], after: result.time) }
        return .reply([result.status] + result.data, after: result.time)
    }

    mutating func communicateThru(_ params: [UInt8], field: inout RFField) -> ChipOutcome {
        // An empty frame (libnfc's NFC Barcode listen) gets what a field without a barcode tag gives: a timeout.
        registers[Register.control] = 0
        let crcOut = (registers[Register.txMode] ?? 0) & 0x80 != 0
        let crcIn = (registers[Register.rxMode] ?? 0) & 0x80 != 0
        let partialBits = (registers[Register.bitFraming] ?? 0) & 0x07
        let frame = crcOut ? params : ISO14443CRC.strip(params)
        guard let id = targets.first, partialBits == 0, let frame, !frame.isEmpty else {
            tagTimeouts += 1
            return .reply([PN532Status.timeout], after: retryTimeout)
        }
        if frame.count == 2, frame[0] == 0x50 {  // HLTA: the tag halts and never answers
            field.halt(id: id)
            return .reply([PN532Status.timeout], after: retryTimeout)
        }
        if let index = field.index(of: id), field.entries[index].tag.activation.isISODEP {
            return isoDEPBlock(frame, id: id, field: &field, crc: !crcIn)
        }
        var result = exchange(id: id, frame, field: &field)
        if result.status == PN532Status.mifareError || (result.status == PN532Status.ok && result.data.isEmpty) {
            // A 4-bit ACK (0xA) or NAK (0x0) comes back as one byte with 4 valid bits.
            result = (PN532Status.ok, [result.status == PN532Status.ok ? 0x0A : 0x00], result.time)
            registers[Register.control] = 0x04
            return .reply([PN532Status.ok] + result.data, after: result.time)
        }
        guard result.status == PN532Status.ok else { return .reply([result.status], after: result.time) }
        return .reply([PN532Status.ok] + result.data + (crcIn ? [] : ISO14443CRC.crcA(result.data)), after: result.time)
    }

    /// An ISO-DEP block sent raw (libnfc's presence check sends R(NAK) `B2`):
    /// I-blocks carry an APDU to the tag, R(NAK) gets R(ACK), S(DESELECT) halts.
    mutating func isoDEPBlock(_ frame: [UInt8], id: Int, field: inout RFField, crc: Bool) -> ChipOutcome {
        let pcb = frame[0]
        let answer: [UInt8]
        var time = pacing.radio(sent: frame.count, received: 1, programming: false)
        switch pcb & 0xF6 {
        case 0x02:  // I-block without CID or NAD
            let result = exchange(id: id, Array(frame.dropFirst()), field: &field)
            guard result.status == PN532Status.ok else { return .reply([result.status], after: result.time) }
            answer = [pcb] + result.data
            time = result.time
        case 0xB2:  // R(NAK): the tag acknowledges its last block
            guard let index = field.index(of: id), !field.entries[index].halted else {
                tagTimeouts += 1
                return .reply([PN532Status.timeout], after: retryTimeout)
            }
            answer = [0xA2 | (pcb & 0x01)]
        case 0xC2 where pcb == 0xC2:  // S(DESELECT)
            field.halt(id: id)
            answer = [0xC2]
        default:
            tagTimeouts += 1
            return .reply([PN532Status.timeout], after: retryTimeout)
        }
        return .reply([PN532Status.ok] + answer + (crc ? ISO14443CRC.crcA(answer) : []), after: time)
    }
}

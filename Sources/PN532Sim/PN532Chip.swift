import TagKit

/// A command the chip cannot answer yet: InAutoPoll, or InListPassiveTarget
/// with endless retries, waiting for a tag to enter the field.
struct PendingPoll: Sendable {
    enum Kind: Sendable {
        case autoPoll(types: [UInt8], period: Duration)
        case listPassive(maxTargets: Int, selection: Selection)
    }

    var code: UInt8
    var kind: Kind
    var started: ContinuousClock.Instant
    /// When the chip gives up and answers "no target"; nil: it polls for ever.
    var deadline: ContinuousClock.Instant?
    /// When InAutoPoll's next polling slot reports a tag that has entered the field.
    var answerAt: ContinuousClock.Instant?
}

/// Which tags an activation picks.
enum Selection: Sendable {
    /// InListPassiveTarget at 106 kbit/s type A: every type A tag, or the one with this (cascaded) UID.
    case typeA(uid: [UInt8])
    /// InListPassiveTarget at 212/424 kbit/s: FeliCa tags answering this SENSF_REQ (`00 SC SC RC TSN`).
    case felica(request: [UInt8])
    /// InAutoPoll with these target types.
    case autoPoll(types: [UInt8])
    /// A modulation no simulated tag answers (ISO 14443-B, Jewel).
    case nothing
}

/// What the chip does with one command.
enum ChipOutcome: Sendable {
    /// Answer with `data` (after the response code) once `after` has passed.
    case reply([UInt8], after: Duration)
    /// Answer with the application-level error frame (unknown command, bad parameters).
    case syntaxError
    /// Keep the command running until a tag arrives or the poll ends.
    case waiting(PendingPoll)
}

/// The PN532's command set over an `RFField`: registers, parameters, RF
/// settings, target activation and data exchange. Pure state, no I/O: the
/// simulator's thread feeds it commands and sends what it answers.
struct PN532Chip: Sendable {
    static let firmwareVersion: [UInt8] = [0x32, 0x01, 0x06, 0x07]  // PN532 v1.6, ISO14443A/B and ISO18092

    let pacing: Pacing
    /// Registers written by the host; reads of others return 0 (TxMode/RxMode start with CRC on).
    private(set) var registers: [UInt16: UInt8] = [Register.txMode: 0x80, Register.rxMode: 0x80]
    private var parameters: UInt8 = 0x14
    private var fieldOn = true
    private var retryTimeoutCode: UInt8 = 0x0A
    private var passiveActivationRetries: UInt8 = 0xFF
    /// Activated targets, by field entry id; Tg n is `targets[n - 1]`.
    private var targets: [Int] = []
    private(set) var tagExchanges = 0
    private(set) var tagTimeouts = 0

    init(pacing: Pacing) { self.pacing = pacing }

    enum Register {
        static let txMode: UInt16 = 0x6302
        static let rxMode: UInt16 = 0x6303
        static let control: UInt16 = 0x633C
        static let bitFraming: UInt16 = 0x633D
    }

    /// How long the chip waits for a silent tag (RFConfiguration item 0x02, 100 µs · 2^(n−1)).
    private var retryTimeout: Duration {
        guard pacing.modelsRadio, retryTimeoutCode > 0 else { return .zero }
        return .microseconds(100 << Int(min(retryTimeoutCode, 0x10) - 1))
    }

    mutating func execute(_ command: [UInt8], field: inout RFField, now: ContinuousClock.Instant) -> ChipOutcome {
        guard let code = command.first, let known = PN532Command(rawValue: code) else { return .syntaxError }
        let params = Array(command.dropFirst())
        switch known {
        case .diagnose: return diagnose(params, field: field)
        case .getFirmwareVersion: return .reply(Self.firmwareVersion, after: .zero)
        case .getGeneralStatus:
            var status: [UInt8] = [0x00, fieldOn ? 1 : 0, UInt8(targets.count)]
            for number in targets.indices { status += [UInt8(number + 1), 0x00, 0x00, 0x00] }
            return .reply(status + [0x00], after: .zero)
        case .readRegister:
            guard !params.isEmpty, params.count.isMultiple(of: 2) else { return .syntaxError }
            let values = stride(from: 0, to: params.count, by: 2).map {
                registers[UInt16(params[$0]) << 8 | UInt16(params[$0 + 1])] ?? 0
            }
            return .reply(values, after: .zero)
        case .writeRegister:
            guard !params.isEmpty, params.count.isMultiple(of: 3) else { return .syntaxError }
            for index in stride(from: 0, to: params.count, by: 3) {
                registers[UInt16(params[index]) << 8 | UInt16(params[index + 1])] = params[index + 2]
            }
            return .reply([], after: .zero)
        case .setParameters:
            guard params.count == 1 else { return .syntaxError }
            parameters = params[0]
            return .reply([], after: .zero)
        case .samConfiguration:
            guard (1...3).contains(params.count), (1...4).contains(params[0]) else { return .syntaxError }
            return .reply([], after: .zero)
        case .powerDown:
            guard (1...2).contains(params.count) else { return .syntaxError }
            return .reply([PN532Status.ok], after: .zero)
        case .rfConfiguration: return rfConfiguration(params, field: &field)
        case .inDataExchange: return dataExchange(params, field: &field)
        case .inCommunicateThru: return communicateThru(params, field: &field)
        case .inDeselect, .inRelease:
            guard params.count == 1 else { return .syntaxError }
            let chosen = params[0] == 0 ? targets : targetID(params[0]).map { [$0] } ?? []
            for id in chosen { field.halt(id: id) }
            if known == .inRelease { targets.removeAll { chosen.contains($0) } }
            return .reply([PN532Status.ok], after: .zero)
        case .inSelect:
            guard params.count == 1, let id = targetID(params[0]), let index = field.index(of: id) else {
                return .reply([PN532Status.notAcceptable], after: .zero)
            }
            field.entries[index].halted = false
            return .reply([PN532Status.ok], after: .zero)
        case .inListPassiveTarget: return listPassiveTarget(params, field: &field, now: now)
        case .inAutoPoll: return autoPoll(params, field: &field, now: now)
        }
    }

    /// Tries a waiting command again: the answer when it is due, otherwise when to look next
    /// (nil: only when the field changes).
    mutating func resume(_ pending: inout PendingPoll, field: inout RFField, now: ContinuousClock.Instant)
        -> (answer: [UInt8]?, next: ContinuousClock.Instant?)
    {
        switch pending.kind {
        case .listPassive(let maxTargets, let selection):
            let found = activate(field: &field, maxTargets: maxTargets, selection)
            if !found.isEmpty { return (found, nil) }
        case .autoPoll(let types, let period):
            let eligible = field.entries.contains { !$0.halted && Self.pollType($0.tag.activation, types) != nil }
            if !eligible {
                pending.answerAt = nil
            } else {
                if pending.answerAt == nil {
                    // The tag is seen at the first polling slot after it arrived.
                    let slots = ((now - pending.started) / period).rounded(.up)
                    pending.answerAt = pacing.modelsRadio ? pending.started + period * slots : now
                }
                if let answerAt = pending.answerAt, answerAt > now { return (nil, answerAt) }
                return (activate(field: &field, maxTargets: 2, .autoPoll(types: types)), nil)
            }
        }
        if let deadline = pending.deadline, deadline <= now { return ([0x00], nil) }
        return (nil, pending.deadline)
    }

    // MARK: - Commands

    private func diagnose(_ params: [UInt8], field: RFField) -> ChipOutcome {
        guard let test = params.first else { return .syntaxError }
        switch test {
        case 0x00: return .reply(params, after: .zero)
        case 0x06:
            let present = targets.first.flatMap { field.index(of: $0) }.map { !field.entries[$0].halted } ?? false
            return .reply([present ? PN532Status.ok : PN532Status.timeout], after: present ? .zero : retryTimeout)
        default: return .reply([PN532Status.ok], after: .zero)
        }
    }

    private mutating func rfConfiguration(_ params: [UInt8], field: inout RFField) -> ChipOutcome {
        guard let item = params.first else { return .syntaxError }
        switch (item, params.count) {
        case (0x01, 2):
            let on = params[1] & 0x01 != 0
            if !on || !fieldOn {
                field.resetAll()
                targets.removeAll()
            }
            fieldOn = on
        case (0x02, 4): retryTimeoutCode = params[3]
        case (0x04, 2): break
        case (0x05, 4): passiveActivationRetries = params[3]
        case (0x0A, _), (0x0B, _), (0x0C, _), (0x0D, _): break
        default: return .syntaxError
        }
        return .reply([], after: .zero)
    }

    private func targetID(_ tg: UInt8) -> Int? {
        let index = Int(tg & 0x0F) - 1
        return targets.indices.contains(index) ? targets[index] : nil
    }

    /// One exchange with the tag behind `id`, as the chip's status byte plus data.
    private mutating func exchange(id: Int, _ command: [UInt8], field: inout RFField) -> (status: UInt8, data: [UInt8], time: Duration) {
        tagExchanges += 1
        guard let index = field.index(of: id), !field.entries[index].halted else {
            tagTimeouts += 1
            return (PN532Status.timeout, [], retryTimeout)
        }
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

    private mutating func dataExchange(_ params: [UInt8], field: inout RFField) -> ChipOutcome {
        guard params.count >= 2 else { return .syntaxError }
        guard let id = targetID(params[0]) else { return .reply([PN532Status.notAcceptable], after: .zero) }
        let command = Array(params.dropFirst())
        let mifare = field.index(of: id).map { field.entries[$0].tag.activation }.map { !$0.isISODEP && $0.felica == nil } ?? false
        if mifare, command[0] == 0x60 || command[0] == 0x61, command.count != 12 {
            // The chip reads 60/61 as MIFARE authentication and checks its parameters itself.
            return .reply([PN532Status.invalidParameter], after: .zero)
        }
        let result = exchange(id: id, command, field: &field)
        guard result.data.count <= 262 else { return .reply([PN532Status.rfBufferOverflow], after: result.time) }
        return .reply([result.status] + result.data, after: result.time)
    }

    private mutating func communicateThru(_ params: [UInt8], field: inout RFField) -> ChipOutcome {
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
    private mutating func isoDEPBlock(_ frame: [UInt8], id: Int, field: inout RFField, crc: Bool) -> ChipOutcome {
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

    private mutating func listPassiveTarget(_ params: [UInt8], field: inout RFField, now: ContinuousClock.Instant) -> ChipOutcome {
        guard params.count >= 2, (1...2).contains(params[0]) else { return .syntaxError }
        targets.removeAll()
        let maxTargets = Int(params[0])
        let initiatorData = Array(params.dropFirst(2))
        let selection: Selection = switch params[1] {
        case 0x00: .typeA(uid: initiatorData)
        case 0x01, 0x02: .felica(request: initiatorData)
        default: .nothing
        }
        let found = activate(field: &field, maxTargets: maxTargets, selection)
        if !found.isEmpty { return .reply(found, after: pacing.radio(sent: 12, received: 20, programming: false)) }
        if passiveActivationRetries == 0xFF {
            return .waiting(PendingPoll(code: PN532Command.inListPassiveTarget.rawValue,
                                        kind: .listPassive(maxTargets: maxTargets, selection: selection),
                                        started: now, deadline: nil))
        }
        let attempts = Int(passiveActivationRetries) + 1
        return .reply([0x00], after: pacing.modelsRadio ? .milliseconds(attempts * 5) : .zero)
    }

    private mutating func autoPoll(_ params: [UInt8], field: inout RFField, now: ContinuousClock.Instant) -> ChipOutcome {
        guard params.count >= 3, params.count <= 17, params[1] > 0 else { return .syntaxError }
        targets.removeAll()
        field.resetAll()  // the chip cycles the field between polls
        let types = Array(params.dropFirst(2))
        let period = Duration.milliseconds(150) * Int(params[1])
        let deadline = params[0] == 0xFF ? nil : now + period * (Int(params[0]) * types.count)
        let found = activate(field: &field, maxTargets: 2, .autoPoll(types: types))
        if !found.isEmpty { return .reply(found, after: pacing.radio(sent: 12, received: 16, programming: false)) }
        return .waiting(PendingPoll(code: PN532Command.inAutoPoll.rawValue, kind: .autoPoll(types: types, period: period),
                                    started: now, deadline: deadline))
    }

    /// The InAutoPoll target type a tag is reported under: the first requested
    /// type it answers (0x00 generic and 0x10 MIFARE: any type A tag; 0x20:
    /// ISO-DEP; 0x01/0x02 passive 212/424 and 0x11/0x12 FeliCa: FeliCa tags).
    private static func pollType(_ activation: TagActivation, _ types: [UInt8]) -> UInt8? {
        types.first { type in
            switch type {
            case 0x00, 0x10: return activation.felica == nil
            case 0x20: return activation.isISODEP
            case 0x01, 0x02, 0x11, 0x12: return activation.felica != nil
            default: return false
            }
        }
    }

    /// Activates up to `maxTargets` tags that are not halted and that `selection`
    /// picks, and returns `NbTg` followed by their target data; empty when none.
    private mutating func activate(field: inout RFField, maxTargets: Int, _ selection: Selection) -> [UInt8] {
        targets.removeAll()
        var answer: [UInt8] = [0]
        for index in field.entries.indices where targets.count < maxTargets && !field.entries[index].halted {
            let activation = field.entries[index].tag.activation
            guard let data = targetData(activation, number: UInt8(targets.count + 1), selection) else { continue }
            field.entries[index].tag.reset()
            targets.append(field.entries[index].id)
            answer += data
        }
        answer[0] = UInt8(targets.count)
        return targets.isEmpty ? [] : answer
    }

    /// A tag's TargetData (`Tg` first), with InAutoPoll's type and length before it; nil when `selection` skips it.
    private func targetData(_ activation: TagActivation, number: UInt8, _ selection: Selection) -> [UInt8]? {
        switch selection {
        case .typeA(let uid):
            guard activation.felica == nil, uid.isEmpty || uid == activation.uid || uid == Self.cascaded(activation.uid) else { return nil }
            return Self.typeAData(activation, number: number, withATS: activation.isISODEP && parameters & 0x10 != 0)
        case .felica(let request):
            guard let felica = activation.felica else { return nil }
            let wanted = request.count >= 3 ? Array(request[1...2]) : [0xFF, 0xFF]
            let matches = zip(wanted, felica.systemCode).allSatisfy { $0 == 0xFF || $0 == $1 }
            guard matches else { return nil }
            return Self.felicaData(activation, felica, number: number, withSystemCode: request.count >= 4 && request[3] == 0x01)
        case .autoPoll(let types):
            guard let type = Self.pollType(activation, types) else { return nil }
            let data = activation.felica.map { Self.felicaData(activation, $0, number: number, withSystemCode: true) }
                ?? Self.typeAData(activation, number: number, withATS: type == 0x20)
            return [type, UInt8(data.count)] + data
        case .nothing:
            return nil
        }
    }

    private static func typeAData(_ activation: TagActivation, number: UInt8, withATS: Bool) -> [UInt8] {
        var data: [UInt8] = [number] + activation.atqa
        data += [activation.sak, UInt8(activation.uid.count)] + activation.uid
        if withATS { data += activation.ats ?? [] }
        return data
    }

    /// `Tg POL_RES-length 01 IDm PMm [system code]`, the length counting itself.
    private static func felicaData(_ activation: TagActivation, _ felica: FeliCaParameters, number: UInt8, withSystemCode: Bool) -> [UInt8] {
        let response = [0x01] + activation.uid + felica.pmm + (withSystemCode ? felica.systemCode : [])
        return [number, UInt8(response.count + 1)] + response
    }

    /// A UID as anticollision cascades it (`88` before the first three bytes of a 7-byte UID).
    private static func cascaded(_ uid: [UInt8]) -> [UInt8] {
        uid.count == 7 ? [0x88] + uid : uid
    }
}

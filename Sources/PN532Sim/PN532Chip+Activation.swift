import TagKit

/// Which tags an activation picks.
enum Selection: Sendable {
    /// InListPassiveTarget at 106 kbit/s type A: every type A tag, or the one with this (cascaded) UID.
    case typeA(uid: [UInt8])
    /// InListPassiveTarget at 212/424 kbit/s: FeliCa tags answering this SENSF_REQ (`00 SC SC RC TSN`).
    case felica(request: [UInt8])
    /// InAutoPoll with these target types.
    case autoPoll(types: [UInt8])
    /// InListPassiveTarget for Jewel (Type 1) tags.
    case jewel
    /// A modulation no simulated tag answers (ISO 14443-B).
    case nothing
}

/// Activation: InListPassiveTarget, InAutoPoll, and the target data they answer with.
extension PN532Chip {
    mutating func listPassiveTarget(_ params: [UInt8], field: inout RFField, now: ContinuousClock.Instant) -> ChipOutcome {
        guard params.count >= 2, (1...2).contains(params[0]) else { return .syntaxError }
        targets.removeAll()
        let maxTargets = Int(params[0])
        let initiatorData = Array(params.dropFirst(2))
        let selection: Selection = switch params[1] {
        case 0x00: .typeA(uid: initiatorData)
        case 0x01, 0x02: .felica(request: initiatorData)
        case 0x04: .jewel
        default: .nothing
        }
        let found = activate(field: &field, maxTargets: maxTargets, selection)
        if !found.isEmpty { return .reply(found, after: pacing.radio(sent: 12, received: 20, programming: false)) }
        if passiveActivationRetries == 0xFF {
            return .waiting(PendingPoll(code: PN532Command.inListPassiveTarget.rawValue,
                                        kind: .listPassive(maxTargets: maxTargets, selection: selection),
                                        started: now, deadline: nil))
        }
        guard pacing.modelsRadio else { return .reply([0x00], after: .zero) }
        // Each attempt sends the request and waits for an answer; a tag entering the
        // field meanwhile answers the next attempt (`resume`).
        let attempts = Int(passiveActivationRetries) + 1
        return .waiting(PendingPoll(code: PN532Command.inListPassiveTarget.rawValue,
                                    kind: .listPassive(maxTargets: maxTargets, selection: selection),
                                    started: now, deadline: now + Self.activationAttempt * attempts))
    }

    /// How long one passive activation attempt takes when no tag answers.
    static let activationAttempt = Duration.milliseconds(5)

    /// Whether an activation with `selection` would find a tag in `field` now.
    func sees(_ field: RFField, _ selection: Selection) -> Bool {
        field.entries.contains { !$0.halted && targetData($0.tag.activation, number: 1, selection) != nil }
    }

    mutating func autoPoll(_ params: [UInt8], field: inout RFField, now: ContinuousClock.Instant) -> ChipOutcome {
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
    /// ISO-DEP; 0x01/0x02 passive 212/424 and 0x11/0x12 FeliCa: FeliCa tags; 0x04: Jewel).
    static func pollType(_ activation: TagActivation, _ types: [UInt8]) -> UInt8? {
        types.first { type in
            switch type {
            case 0x00, 0x10: return activation.felica == nil && !activation.isJewel
            case 0x20: return activation.isISODEP
            case 0x01, 0x02, 0x11, 0x12: return activation.felica != nil
            case 0x04: return activation.isJewel
            default: return false
            }
        }
    }

    /// Activates up to `maxTargets` tags that are not halted and that `selection`
    /// picks, and returns `NbTg` followed by their target data; empty when none.
    mutating func activate(field: inout RFField, maxTargets: Int, _ selection: Selection) -> [UInt8] {
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
        if targets.isEmpty { return [] }
        activations += 1
        return answer
    }

    /// A tag's TargetData (`Tg` first), with InAutoPoll's type and length before it; nil when `selection` skips it.
    func targetData(_ activation: TagActivation, number: UInt8, _ selection: Selection) -> [UInt8]? {
        // A PN532 has no ISO 15693 front end: a vicinity tag in its field stays unseen.
        guard !activation.isVicinity else { return nil }
        switch selection {
        case .typeA(let uid):
            guard activation.felica == nil, !activation.isJewel,
                  uid.isEmpty || uid == activation.uid || uid == Self.cascaded(activation.uid) else { return nil }
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
                ?? (activation.isJewel ? Self.jewelData(activation, number: number)
                    : Self.typeAData(activation, number: number, withATS: type == 0x20))
            return [type, UInt8(data.count)] + data
        case .jewel:
            return activation.isJewel ? Self.jewelData(activation, number: number) : nil
        case .nothing:
            return nil
        }
    }

    static func typeAData(_ activation: TagActivation, number: UInt8, withATS: Bool) -> [UInt8] {
        var data: [UInt8] = [number] + activation.atqa
        data += [activation.sak, UInt8(activation.uid.count)] + activation.uid
        if withATS { data += activation.ats ?? [] }
        return data
    }

    /// `Tg SENS_RES JEWELID`: the UID's first four bytes.
    static func jewelData(_ activation: TagActivation, number: UInt8) -> [UInt8] {
        [number] + activation.atqa + activation.uid.prefix(4)
    }

    /// `Tg POL_RES-length 01 IDm PMm [system code]`, the length counting itself.
    static func felicaData(_ activation: TagActivation, _ felica: FeliCaParameters, number: UInt8, withSystemCode: Bool) -> [UInt8] {
        let response = [0x01] + activation.uid + felica.pmm + (withSystemCode ? felica.systemCode : [])
        return [number, UInt8(response.count + 1)] + response
    }

    /// A UID as anticollision cascades it (`88` before the first three bytes of a 7-byte UID).
    static func cascaded(_ uid: [UInt8]) -> [UInt8] {
        uid.count == 7 ? [0x88] + uid : uid
    }
}

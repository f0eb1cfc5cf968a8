import TagKit

/// A command the chip cannot answer yet: InAutoPoll, or InListPassiveTarget
/// still retrying, waiting for a tag to enter the field.
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
    /// When the next polling slot or activation attempt reports a tag that has entered the field.
    var answerAt: ContinuousClock.Instant?
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
    var registers: [UInt16: UInt8] = [Register.txMode: 0x80, Register.rxMode: 0x80]
    var parameters: UInt8 = 0x14
    private var fieldOn = true
    private var retryTimeoutCode: UInt8 = 0x0A
    var passiveActivationRetries: UInt8 = 0xFF
    /// Activated targets, by field entry id; Tg n is `targets[n - 1]`.
    var targets: [Int] = []
    var tagExchanges = 0
    var tagTimeouts = 0
    /// Activations that found at least one tag.
    var activations = 0

    init(pacing: Pacing) { self.pacing = pacing }

    enum Register {
        static let txMode: UInt16 = 0x6302
        static let rxMode: UInt16 = 0x6303
        static let control: UInt16 = 0x633C
        static let bitFraming: UInt16 = 0x633D
    }

    /// How long the chip waits for a silent tag (RFConfiguration item 0x02, 100 µs · 2^(n−1)).
    var retryTimeout: Duration {
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
            guard pacing.modelsRadio, let deadline = pending.deadline else {
                let found = activate(field: &field, maxTargets: maxTargets, selection)
                if !found.isEmpty { return (found, nil) }
                break
            }
            // Finite retries: a tag that entered answers the next attempt, if one is left.
            if let answerAt = answerTime(&pending, sees: sees(field, selection), slot: Self.activationAttempt, now: now), answerAt < deadline {
                if answerAt > now { return (nil, answerAt) }
                return (activate(field: &field, maxTargets: maxTargets, selection), nil)
            }
        case .autoPoll(let types, let period):
            if let answerAt = answerTime(&pending, sees: sees(field, .autoPoll(types: types)), slot: period, now: now) {
                if answerAt > now { return (nil, answerAt) }
                return (activate(field: &field, maxTargets: 2, .autoPoll(types: types)), nil)
            }
        }
        if let deadline = pending.deadline, deadline <= now { return ([0x00], nil) }
        return (nil, pending.deadline)
    }

    /// When a waiting command answers for the tag it `sees` now: at the first slot (polling
    /// period, activation attempt) that starts after the tag arrived; at once without radio
    /// timing. Nil while it sees none.
    private func answerTime(_ pending: inout PendingPoll, sees: Bool, slot: Duration, now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        guard sees else {
            pending.answerAt = nil
            return nil
        }
        if pending.answerAt == nil {
            let slots = ((now - pending.started) / slot).rounded(.up)
            pending.answerAt = pacing.modelsRadio ? pending.started + slot * slots : now
        }
        return pending.answerAt
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
}

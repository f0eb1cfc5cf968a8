import TagReader
import CNFC
import Glibc
import Synchronization

/// An open libnfc device, used by the one thread that opened it. Only `abortHandle`
/// may be touched from other threads (to unblock a call for shutdown or the watchdog).
final class NFCDevice {
    private let pointer: OpaquePointer
    /// Held until the device is closed.
    private let lock: DeviceLock
    let abortHandle: AbortHandle
    /// Set when a transceive through `LibNFCTransport` found the device gone; the
    /// reader loop checks it after a tag driver returns and reopens the device.
    var lost: NFCError?

    /// Made on the thread that will use it. `line`: the tty libnfc holds, for a serial reader.
    init(_ pointer: OpaquePointer, lock: DeviceLock, line: SerialLine?) {
        self.pointer = pointer
        self.lock = lock
        abortHandle = AbortHandle(pointer, line: line)
    }

    deinit {
        abortHandle.invalidate()
        nfc_close(pointer)
    }

    var name: String { String(cString: nfc_device_get_name(pointer)) }
    var connstring: String { String(cString: nfc_device_get_connstring(pointer)) }

    /// The chip and firmware (`PN532 v1.6`), from libnfc's device information.
    var chip: String? {
        var buffer: UnsafeMutablePointer<CChar>?
        guard nfc_device_get_information_about(pointer, &buffer) >= 0, let buffer else { return nil }
        defer { nfc_free(buffer) }
        let line = String(cString: buffer).split(separator: "\n").first { $0.hasPrefix("chip: ") }
        return line.map { String($0.dropFirst(6)) }
    }

    /// Puts the device in initiator (reader) mode: RF field on, easy framing, CRC and parity by the chip.
    func initiatorInit() throws(NFCError) {
        try check("nfc_initiator_init", nfc_initiator_init(pointer))
    }

    func setProperty(_ property: nfc_property, _ value: Bool, _ operation: String) throws(NFCError) {
        try check(operation, nfc_device_set_property_bool(pointer, property, value))
    }

    /// Switches the RF field off and on again: every tag in the field powers up
    /// afresh and answers the next poll, halted or not.
    func resetField() throws(NFCError) {
        try setProperty(NP_ACTIVATE_FIELD, false, "RF field off")
        try setProperty(NP_ACTIVATE_FIELD, true, "RF field on")
    }

    /// PN532 InAutoPoll for every modulation tagrouter reads: blocks in the chip for
    /// up to `pollCount` × `period` × 150 ms per target type (libnfc adds ISO-DEP
    /// before type A). The chip may see two tags, libnfc reports one (the second);
    /// `count` says how many there were.
    func autoPoll(pollCount: UInt8, period: UInt8) throws(NFCError) -> (target: NFCTarget?, count: Int) {
        let modulations = NFCTarget.Modulation.allCases.map(\.libnfc)
        var target = nfc_target()
        let found = nfc_initiator_poll_target(pointer, modulations, modulations.count, pollCount, period, &target)
        try check("nfc_initiator_poll_target", found)
        return found > 0 ? (NFCTarget(target), Int(found)) : (nil, 0)
    }

    /// The tags of one modulation in the field, up to `max` (each selected, then
    /// halted, but the last one when the list is full): the selections
    /// `nfc_initiator_list_passive_targets` makes, without the RFConfiguration frame it
    /// sends before them every time to turn `NP_INFINITE_SELECT` off, which the reader
    /// did once when it prepared the chip. FeliCa and Jewel have no halt state: one at most.
    func listPassiveTargets(_ modulation: NFCTarget.Modulation, max: Int) throws(NFCError) -> [NFCTarget] {
        var targets: [NFCTarget] = []
        while targets.count < max, let target = try selectAny(modulation), !targets.contains(where: { $0.uid == target.uid }) {
            targets.append(target)
            guard targets.count < max, modulation == .iso14443A else { break }
            try deselect()
        }
        return targets
    }

    /// Selects `target` again (type A: anticollision aimed at its UID). Nil when it did not answer.
    func select(_ target: NFCTarget) throws(NFCError) -> NFCTarget? {
        let data = target.modulation == .iso14443A ? target.uid.bytes : target.modulation.initiatorData
        guard let reselected = try select(target.modulation, data), reselected.uid == target.uid else { return nil }
        return reselected
    }

    /// Selects the first tag of `modulation` that answers, and leaves it selected: one
    /// InListPassiveTarget with the retries `NP_INFINITE_SELECT` off sets (three attempts).
    /// Nil when none answered.
    func selectAny(_ modulation: NFCTarget.Modulation) throws(NFCError) -> NFCTarget? {
        try select(modulation, modulation.initiatorData)
    }

    private func select(_ modulation: NFCTarget.Modulation, _ data: [UInt8]) throws(NFCError) -> NFCTarget? {
        var selected = nfc_target()
        let found = data.withUnsafeBufferPointer { buffer in
            nfc_initiator_select_passive_target(pointer, modulation.libnfc, buffer.baseAddress, buffer.count, &selected)
        }
        try check("nfc_initiator_select_passive_target", found)
        return found > 0 ? NFCTarget(selected) : nil
    }

    func deselect() throws(NFCError) {
        try check("nfc_initiator_deselect_target", nfc_initiator_deselect_target(pointer))
    }

    /// Whether the selected tag still answers (`NFC_ETGRELEASED` means it left).
    func selectedTargetIsPresent() throws(NFCError) -> Bool {
        let result = nfc_initiator_target_is_present(pointer, nil)
        if result == NFC_ETGRELEASED || result == NFC_ETIMEOUT || result == NFC_ERFTRANS { return false }
        try check("nfc_initiator_target_is_present", result)
        return true
    }

    /// Sends `command` to the selected tag; the answer, or libnfc's error code.
    func transceive(_ command: [UInt8], timeoutMs: Int32) -> Result<[UInt8], NFCError> {
        var answer = [UInt8](repeating: 0, count: 264)
        let received = nfc_initiator_transceive_bytes(pointer, command, command.count, &answer, answer.count, timeoutMs)
        guard received >= 0 else { return .failure(NFCError("nfc_initiator_transceive_bytes", code: received)) }
        return .success(Array(answer.prefix(Int(received))))
    }

    /// Sends `command` to the selected tag as raw bytes (InCommunicateThru, easy
    /// framing off; the chip still adds and checks the CRC). For commands the PN532
    /// would otherwise interpret itself: it takes `60`/`61` in InDataExchange for
    /// MIFARE authentication, so a Type 2 GET_VERSION (`60`) must go this way.
    func transceiveRaw(_ command: [UInt8], timeoutMs: Int32) -> Result<[UInt8], NFCError> {
        do {
            try setProperty(NP_EASY_FRAMING, false, "easy framing off")
        } catch {
            return .failure(error)
        }
        let answer = transceive(command, timeoutMs: timeoutMs)
        do {
            try setProperty(NP_EASY_FRAMING, true, "easy framing on")
        } catch {
            return .failure(error)
        }
        return answer
    }

    private func check(_ operation: String, _ result: Int32) throws(NFCError) {
        if result < 0 { throw NFCError(operation, code: result) }
    }
}

/// Lets another thread abort the device's blocking call (`nfc_abort_command`),
/// safely even while the owning thread closes the device.
final class AbortHandle: Sendable {
    private struct Device: @unchecked Sendable {
        let pointer: OpaquePointer
        let line: SerialLine?
        /// The thread that opened the device and makes its calls.
        let owner: pthread_t
    }
    private let device: Mutex<Device?>

    /// Made on the thread that uses the device.
    init(_ pointer: OpaquePointer, line: SerialLine?) { device = Mutex(Device(pointer: pointer, line: line, owner: pthread_self())) }

    /// Makes the blocked libnfc call on the device return `NFC_EOPABORTED`.
    func abort() {
        device.withLock { device in
            if let device { _ = nfc_abort_command(device.pointer) }
        }
    }

    /// For a device that stopped answering: aborts its call and, for a serial reader,
    /// cuts the line too (`SerialLine`), since libnfc waits for some answers where an
    /// abort does not reach. Every later call on the device fails; it must be reopened.
    func abandon() {
        device.withLock { device in
            guard let device else { return }
            _ = nfc_abort_command(device.pointer)
            device.line?.cut(interrupting: device.owner)
        }
    }

    func invalidate() { device.withLock { $0 = nil } }
}

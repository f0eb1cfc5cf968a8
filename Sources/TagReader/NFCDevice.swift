import CNFC
import Synchronization

/// An open libnfc device, used by the one thread that opened it. Only `abortHandle`
/// may be touched from other threads (to unblock a call for shutdown or the watchdog).
final class NFCDevice {
    private let pointer: OpaquePointer
    /// Keeps the context alive as long as the device.
    private let context: NFCContext
    let abortHandle: AbortHandle
    /// Set when a transceive through `LibNFCTransport` found the device gone; the
    /// reader loop checks it after a tag driver returns and reopens the device.
    var lost: NFCError?

    static let iso14443A = nfc_modulation(nmt: NMT_ISO14443A, nbr: NBR_106)

    init(_ pointer: OpaquePointer, context: NFCContext) {
        self.pointer = pointer
        self.context = context
        abortHandle = AbortHandle(pointer)
    }

    deinit {
        abortHandle.invalidate()
        nfc_close(pointer)
    }

    var name: String { String(cString: nfc_device_get_name(pointer)) }
    var connstring: String { String(cString: nfc_device_get_connstring(pointer)) }

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

    /// PN532 InAutoPoll for ISO 14443-A: blocks in the chip for up to
    /// `pollCount` × `period` × 150 ms per target type. The chip may see two tags,
    /// libnfc reports one (the second); `count` says how many there were.
    func autoPoll(pollCount: UInt8, period: UInt8) throws(NFCError) -> (target: NFCTarget?, count: Int) {
        var modulation = Self.iso14443A
        var target = nfc_target()
        let found = nfc_initiator_poll_target(pointer, &modulation, 1, pollCount, period, &target)
        try check("nfc_initiator_poll_target", found)
        return found > 0 ? (NFCTarget(target), Int(found)) : (nil, 0)
    }

    /// Every ISO 14443-A tag in the field, up to `max` (each selected, then halted).
    func listPassiveTargets(max: Int) throws(NFCError) -> [NFCTarget] {
        var targets = [nfc_target](repeating: nfc_target(), count: max)
        let found = nfc_initiator_list_passive_targets(pointer, Self.iso14443A, &targets, max)
        try check("nfc_initiator_list_passive_targets", found)
        return targets.prefix(Int(found)).map(NFCTarget.init)
    }

    /// Selects the tag with `uid` (anticollision aimed at it). False when it did not answer.
    func select(uid: [UInt8]) throws(NFCError) -> NFCTarget? {
        var target = nfc_target()
        let found = uid.withUnsafeBufferPointer { buffer in
            nfc_initiator_select_passive_target(pointer, Self.iso14443A, buffer.baseAddress, buffer.count, &target)
        }
        try check("nfc_initiator_select_passive_target", found)
        return found > 0 ? NFCTarget(target) : nil
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
    private struct Device: @unchecked Sendable { let pointer: OpaquePointer }
    private let device: Mutex<Device?>

    init(_ pointer: OpaquePointer) { device = Mutex(Device(pointer: pointer)) }

    /// Makes the blocked libnfc call on the device return `NFC_EOPABORTED`.
    func abort() {
        device.withLock { device in
            if let device { _ = nfc_abort_command(device.pointer) }
        }
    }

    func invalidate() { device.withLock { $0 = nil } }
}

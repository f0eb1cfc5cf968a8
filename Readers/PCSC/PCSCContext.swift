internal import CPCSC
import TagReader
import FoundationEssentials

/// A connection to pcscd (`SCardEstablishContext`), used by one thread; only
/// `cancel()` may be called from another (pcsc-lite allows `SCardCancel` there),
/// to end a blocking `waitForChange`.
final class PCSCContext: @unchecked Sendable {
    private let handle: SCARDCONTEXT

    /// Connects to pcscd (the socket `PCSCLITE_CSOCK_NAME` names, else `/run/pcscd/pcscd.comm`).
    init() throws(PCSCError) {
        var handle: SCARDCONTEXT = 0
        let status = SCardEstablishContext(DWORD(SCARD_SCOPE_SYSTEM), nil, nil, &handle)
        guard status == SCARD_S_SUCCESS else { throw PCSCError(status, "SCardEstablishContext") }
        self.handle = handle
    }

    deinit { SCardReleaseContext(handle) }

    /// Ends a `waitForChange` blocked on another thread (it throws `isCancelled`).
    func cancel() { SCardCancel(handle) }

    /// The readers pcscd has now, in its order; empty when there are none.
    func readers() throws(PCSCError) -> [String] {
        var length: DWORD = 0
        var status = SCardListReaders(handle, nil, nil, &length)
        if UInt32(truncatingIfNeeded: status) == PCSCError.noReadersAvailable { return [] }
        guard status == SCARD_S_SUCCESS else { throw PCSCError(status, "SCardListReaders") }
        var buffer = [CChar](repeating: 0, count: Int(length))
        status = SCardListReaders(handle, nil, &buffer, &length)
        if UInt32(truncatingIfNeeded: status) == PCSCError.noReadersAvailable { return [] }
        guard status == SCARD_S_SUCCESS else { throw PCSCError(status, "SCardListReaders") }
        // A multi-string: names separated by NUL, ended by an empty one.
        return buffer.split(separator: 0).map { String(decoding: $0.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
    }

    /// What a reader's slot holds, as `SCardGetStatusChange` reports it.
    struct ReaderState: Equatable {
        /// `SCARD_STATE_*` bits, the card event counter in the upper 16.
        var bits: UInt32
        var atr: [UInt8]

        var cardPresent: Bool { bits & UInt32(SCARD_STATE_PRESENT) != 0 && bits & UInt32(SCARD_STATE_MUTE) == 0 }
        var unavailable: Bool { bits & UInt32(SCARD_STATE_UNAVAILABLE | SCARD_STATE_UNKNOWN | SCARD_STATE_IGNORE) != 0 }
        /// Counts card insertions and removals (pcsc-lite's extension in the upper 16 bits).
        var eventCount: UInt32 { bits >> 16 }
    }

    /// Blocks until `reader`'s state differs from `known` (nil: report it at once),
    /// or `timeout` passes (nil: no limit). Throws `isCancelled` after `cancel()`.
    func waitForChange(reader: String, known: ReaderState?, timeout: Duration?) throws(PCSCError) -> ReaderState? {
        let result = reader.withCString { name -> Result<ReaderState?, PCSCError> in
            var state = SCARD_READERSTATE()
            state.szReader = name
            state.dwCurrentState = DWORD(known?.bits ?? UInt32(SCARD_STATE_UNAWARE))
            let milliseconds = timeout.map { DWORD(max(0, min(Int64(UInt32.max - 1), $0.milliseconds))) } ?? DWORD(INFINITE)
            let status = SCardGetStatusChange(handle, milliseconds, &state, 1)
            if UInt32(truncatingIfNeeded: status) == PCSCError.timeout { return .success(nil) }
            guard status == SCARD_S_SUCCESS else { return .failure(PCSCError(status, "SCardGetStatusChange")) }
            let atr = withUnsafeBytes(of: state.rgbAtr) { Array($0.prefix(Int(min(state.cbAtr, 33)))) }
            return .success(ReaderState(bits: UInt32(truncatingIfNeeded: state.dwEventState) & ~UInt32(SCARD_STATE_CHANGED), atr: atr))
        }
        return try result.get()
    }

    /// Connects to the card on `reader` (shared, any protocol); `direct`: to the reader
    /// itself, card or not, for `control` only.
    func connect(reader: String, direct: Bool = false) throws(PCSCError) -> PCSCCard {
        var card: SCARDHANDLE = 0
        var protocolUsed: DWORD = 0
        let share = DWORD(direct ? SCARD_SHARE_DIRECT : SCARD_SHARE_SHARED)
        let protocols = direct ? DWORD(0) : DWORD(SCARD_PROTOCOL_T0 | SCARD_PROTOCOL_T1)
        let status = SCardConnect(handle, reader, share, protocols, &card, &protocolUsed)
        guard status == SCARD_S_SUCCESS else { throw PCSCError(status, "SCardConnect") }
        return PCSCCard(handle: card, protocolUsed: protocolUsed)
    }
}

/// A connected card (`SCardConnect`): APDUs go to it with `transmit`; it is
/// disconnected, left powered for the next program, when released.
final class PCSCCard: @unchecked Sendable {
    let handle: SCARDHANDLE
    private let protocolUsed: DWORD

    init(handle: SCARDHANDLE, protocolUsed: DWORD) {
        self.handle = handle
        self.protocolUsed = protocolUsed
    }

    deinit { SCardDisconnect(handle, DWORD(SCARD_LEAVE_CARD)) }

    /// Sends one APDU and returns the response, status word included.
    func transmit(_ apdu: [UInt8]) throws(PCSCError) -> [UInt8] {
        var response = [UInt8](repeating: 0, count: 258)
        var length = DWORD(response.count)
        var header = SCARD_IO_REQUEST(dwProtocol: protocolUsed, cbPciLength: DWORD(MemoryLayout<SCARD_IO_REQUEST>.size))
        let status = SCardTransmit(handle, &header, apdu, DWORD(apdu.count), nil, &response, &length)
        guard status == SCARD_S_SUCCESS else { throw PCSCError(status, "SCardTransmit") }
        return Array(response.prefix(Int(length)))
    }

    /// Sends `command` to the reader's driver under control `code` (`SCardControl`) and returns its answer.
    func control(_ code: UInt32, _ command: [UInt8]) throws(PCSCError) -> [UInt8] {
        var response = [UInt8](repeating: 0, count: 258)
        var length: DWORD = 0
        let status = SCardControl(handle, DWORD(code), command, DWORD(command.count), &response, DWORD(response.count), &length)
        guard status == SCARD_S_SUCCESS else { throw PCSCError(status, "SCardControl") }
        return Array(response.prefix(Int(length)))
    }
}

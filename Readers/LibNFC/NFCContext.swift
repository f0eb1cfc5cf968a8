import TagReader
import CNFC
import Synchronization

/// The process's libnfc context (`nfc_init`), shared by every reader thread and
/// never exited.
///
/// libnfc keeps its driver list in one global: every `nfc_exit` frees it, and
/// `nfc_init` rebuilds it only when it is empty. With a context per reader thread,
/// a thread giving up on a missing device (`nfc_exit`) while another was in
/// `nfc_open` left that open with no driver to try ("No driver available to
/// handle", logged as the reader not found until the retry) or walking freed list
/// entries. A context holds only the configuration read at `nfc_init`
/// (`libnfc.conf`, the `LIBNFC_*` variables), which nothing changes afterwards, so
/// threads can share it; so the list is built once and stays.
final class NFCContext: @unchecked Sendable {
    let pointer: OpaquePointer

    private static let made = Mutex<NFCContext?>(nil)

    private init(_ pointer: OpaquePointer) { self.pointer = pointer }

    /// The context, made at the first call; nil while libnfc cannot start
    /// (out of memory, unreadable `libnfc.conf`), tried again at the next call.
    static var shared: NFCContext? {
        made.withLock { made in
            if let made { return made }
            LibNFCSettings.applied
            var context: OpaquePointer?
            nfc_init(&context)
            made = context.map(NFCContext.init)
            return made
        }
    }

    /// The connstrings of the devices libnfc finds (serial ports only when
    /// `LIBNFC_INTRUSIVE_SCAN=true` or listed in `libnfc.conf`).
    func listDevices(max: Int = 16) -> [String] {
        let connstrings = UnsafeMutablePointer<nfc_connstring>.allocate(capacity: max)
        defer { connstrings.deallocate() }
        let found = nfc_list_devices(pointer, connstrings, max)
        return (0..<found).map { index in
            withUnsafeBytes(of: &connstrings[index]) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
        }
    }

    /// Why a device did not open.
    enum OpenFailure: Error {
        /// libnfc could not open it (missing, no permission, not a reader).
        case notOpened
        /// Another process holds its lock, or the lock cannot be taken (its folder is
        /// missing or open to others: `DeviceLock`); the device was not touched.
        case busy(DeviceLock.Failure)
    }

    /// Takes `connstring`'s lock, then opens it (`auto` or empty: the first
    /// listed device whose lock is free; `usb-port:…`: what is plugged in there). A device whose lock cannot be taken is
    /// never opened: someone else could then open it underneath.
    func open(_ connstring: String) -> Result<NFCDevice, OpenFailure> {
        guard connstring != "auto" && !connstring.isEmpty else { return openFirst() }
        if let byPort = USBPortDevice(connstring) {
            // What is plugged into the port now; resolved at every open, as a replug moves the address.
            guard let resolved = byPort.connstring(ports: USBPorts(), listed: listDevices()) else { return .failure(.notOpened) }
            return open(resolved)
        }
        let lock: DeviceLock
        do {
            lock = try DeviceLock.acquire(connstring)
        } catch {
            return .failure(.busy(error))
        }
        let before = SerialLine.openDescriptors()
        guard let device = nfc_open(pointer, connstring) else { return .failure(.notOpened) }
        return .success(NFCDevice(device, lock: lock, line: SerialLine(of: device, openedSince: before)))
    }

    /// `auto`: the listed devices in order; when none is listed, libnfc's own
    /// choice, locked under the connstring it resolved (closed again if that is held).
    private func openFirst() -> Result<NFCDevice, OpenFailure> {
        var firstBusy: DeviceLock.Failure?
        for connstring in listDevices() {
            switch open(connstring) {
            case .success(let device): return .success(device)
            case .failure(.busy(let holder)): firstBusy = firstBusy ?? holder
            case .failure(.notOpened): continue
            }
        }
        if let firstBusy { return .failure(.busy(firstBusy)) }
        let before = SerialLine.openDescriptors()
        guard let opened = nfc_open(pointer, nil) else { return .failure(.notOpened) }
        let line = SerialLine(of: opened, openedSince: before)
        let resolved = String(cString: nfc_device_get_connstring(opened))
        do {
            return .success(NFCDevice(opened, lock: try DeviceLock.acquire(resolved), line: line))
        } catch {
            nfc_close(opened)
            return .failure(.busy(error))
        }
    }
}

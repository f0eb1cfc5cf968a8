import TagReader
import CNFC
import FoundationEssentials
import Glibc

/// The file descriptor libnfc holds on a serial reader's tty (`pn532_uart`, any
/// driver whose port is a device file), found as the one `nfc_open` added on it.
///
/// libnfc 1.8 waits for the chip's ACK, and for the rest of a frame once its first
/// bytes came, with `select(2)` on this descriptor alone: during InAutoPoll with no
/// timeout at all, and `nfc_abort_command` does not reach those waits. A link that
/// freezes there holds the reader thread for good. `cut(interrupting:)` is the
/// watchdog's way out: the descriptor is made to read as /dev/null and the thread's
/// `select` is interrupted, so libnfc's wait fails with `NFC_EIO` and the reader
/// closes the device and opens the tty afresh.
struct SerialLine: Sendable {
    let descriptor: Int32

    /// libnfc marks a tty it has open with this `c_iflag` bit and refuses to open one
    /// that carries it; its own close clears it, a cut line must too.
    private static let claimedFlag: tcflag_t = 0x8000_0000

    /// The descriptors this process has open now on character devices, and which
    /// device each is on (taken just before `nfc_open`).
    static func openDescriptors() -> [Int32: dev_t] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        var devices: [Int32: dev_t] = [:]
        for descriptor in names.compactMap({ Int32($0) }) {
            var status = stat()
            if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFCHR { devices[descriptor] = status.st_rdev }
        }
        return devices
    }

    /// The descriptor `device` opened on its device file since `before` (a serial port;
    /// an I²C or SPI bus too); nil for a USB reader, which libusb reaches without one.
    init?(of device: OpaquePointer, openedSince before: [Int32: dev_t]) {
        let fields = String(cString: nfc_device_get_connstring(device)).split(separator: ":")
        guard fields.count >= 2, fields[1].hasPrefix("/") else { return nil }
        var port = stat()
        guard stat(String(fields[1]), &port) == 0, port.st_mode & S_IFMT == S_IFCHR else { return nil }
        let added = Self.openDescriptors().filter { $0.value == port.st_rdev && before[$0.key] != port.st_rdev }
        guard added.count == 1, let descriptor = added.first?.key else { return nil }
        self.descriptor = descriptor
        Self.acceptInterruption()
    }

    /// Puts /dev/null in the tty's place and interrupts `thread` (the reader's), so a
    /// `select` it is blocked in looks again and fails. Only while the device is open:
    /// the descriptor's number is free for reuse once libnfc closed it.
    func cut(interrupting thread: pthread_t) {
        var settings = termios()
        if tcgetattr(descriptor, &settings) == 0 {
            settings.c_iflag &= ~Self.claimedFlag
            tcsetattr(descriptor, TCSANOW, &settings)
        }
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        guard null >= 0 else { return }
        dup2(null, descriptor)
        close(null)
        pthread_kill(thread, SIGURG)
    }

    /// Lets SIGURG interrupt the calling thread (the one that opened the device): it
    /// gets a handler that does nothing — its arrival alone makes a blocked `select`
    /// return `EINTR`, and libnfc then selects again, on the descriptor as it is now —
    /// and is unblocked, since a thread started from Swift's concurrency pool inherits
    /// a mask that blocks it. SIGURG is ignored by default and used for nothing else here.
    private static func acceptInterruption() {
        handlerInstalled
        var interruption = sigset_t()
        sigemptyset(&interruption)
        sigaddset(&interruption, SIGURG)
        pthread_sigmask(SIG_UNBLOCK, &interruption, nil)
    }

    private static let handlerInstalled: Void = {
        _ = signal(SIGURG) { _ in }
    }()
}

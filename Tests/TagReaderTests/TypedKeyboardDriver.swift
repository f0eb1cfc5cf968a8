import Foundation
import Glibc
import TagCore
import TagKit
import TagReader

@testable import ReaderKeyboard

/// Keyboard-wedge readers for the behaviour tests: the real reader and scan loop (`KeyboardReader`,
/// `KeyboardField`) on a FIFO the test types recorded key events into (`typed-keyboard:/tmp/…`).
/// There is no /dev/uinput here, so nothing is grabbed: the device is opened as a FIFO, not
/// as an input device (the grab's error path is `KeyboardReaderTests`').
enum TypedKeyboardDriver: ReaderDriver {
    static let scheme: String? = "typed-keyboard"
    static let title = "keyboard-wedge on a FIFO"
    static let deviceHelp = "`typed-keyboard:<FIFO>` (tests)"

    static func reader(
        _ config: ReaderConfig, present: [TagEvent], jobs: TagJobQueue?,
        emit: @escaping @Sendable (TagEvent) -> Void, finished: @escaping @Sendable () -> Void
    ) -> any ReaderThread {
        let path = String(config.device.dropFirst("typed-keyboard:".count))
        return KeyboardReader(config: config, path: path, present: present, jobs: jobs, emit: emit, finished: finished, open: InputDevice.init(fifo:))
    }

    static func listDevices(extra: [String]) -> DeviceListing { DeviceListing(lines: [], found: 0, usable: 0) }

    static func doctorChecks(_ machine: DoctorMachine) -> [DoctorCheck] { [] }

    static func reachTag<T>(
        device: String, timeout: Duration, ifBusy: ReaderConfig.BusyPolicy, _ body: (TagInfo, any NDEFTagDriver) throws -> T
    ) throws -> T {
        throw TagAccessError.failed("a keyboard-wedge reader reaches nothing on a tag")
    }
}

/// A FIFO standing for a keyboard-wedge reader's input device, and the reader typing into it.
final class TypedKeyboard: Sendable {
    let path: String
    /// Held open for writing so the reader never meets the end of its input.
    private let writer: Int32

    init() throws {
        path = NSTemporaryDirectory() + "typed-keyboard-\(UUID().uuidString)"
        guard mkfifo(path, 0o600) == 0 else { throw POSIXError(.EEXIST) }
        writer = open(path, O_RDWR | O_CLOEXEC)
    }

    var device: String { "typed-keyboard:" + path }

    /// The reader types `text` (whole, as one write).
    func type(_ text: String) {
        let bytes = KeyboardStreams.bytes(KeyboardStreams.typing(text))
        _ = write(writer, bytes, bytes.count)
    }

    func close() {
        Glibc.close(writer)
        unlink(path)
    }
}

extension InputDevice {
    /// A FIFO of input records, opened for reading and not grabbed (a FIFO cannot be).
    convenience init(fifo path: String) throws(Failure) {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw .missing(path: path) }
        self.init(path: path, descriptor: descriptor)
    }
}

import Glibc

/// A Linux input device (`/dev/input/event*`, or its `/dev/input/by-id/…-event-kbd`
/// link) opened for reading and grabbed: while grabbed, none of its keys reaches
/// a console, a desktop or another program (EVIOCGRAB). Closing it ends the grab.
final class InputDevice: @unchecked Sendable {
    /// Why the device cannot be used; the description says what to do.
    enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// No such file (unplugged, or another name).
        case missing(path: String)
        /// The user may not read it.
        case denied(path: String)
        /// Another program grabbed it (EVIOCGRAB answered EBUSY).
        case grabbed(path: String)
        /// It is not an input device (EVIOCGRAB answered ENOTTY: a file, a pipe, a terminal).
        case notInputDevice(path: String)
        /// Anything else, with errno's words.
        case failed(path: String, what: String, reason: String)

        var description: String {
            switch self {
            case .missing(let path): return "\(path): no such input device (unplugged, or named otherwise: `ls /dev/input/by-id/`)"
            case .denied(let path):
                return "\(path): permission denied; the package's udev rule admits a reader by its USB ids (docs/reader.md \"Keyboard-wedge readers\")"
            case .grabbed(let path): return "\(path): another program has grabbed it (EVIOCGRAB: busy); stop it, or the other tagrouter reading it"
            case .notInputDevice(let path): return "\(path): not an input device (EVIOCGRAB: not a tty); name its /dev/input/by-id/…-event-kbd link"
            case .failed(let path, let what, let reason): return "\(path): \(what): \(reason)"
            }
        }
    }

    let path: String
    let descriptor: Int32

    /// `EVIOCGRAB`: `_IOW('E', 0x90, int)` (linux/input.h); the macro is not imported into Swift.
    static let grabRequest = UInt(0x4004_4590)

    /// Opens `path` for reading and grabs it.
    convenience init(path: String) throws(Failure) {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            switch code {
            case ENOENT, ENODEV, ENXIO: throw .missing(path: path)
            case EACCES, EPERM: throw .denied(path: path)
            default: throw .failed(path: path, what: "open", reason: String(cString: strerror(code)))
            }
        }
        guard ioctl(descriptor, Self.grabRequest, 1) == 0 else {
            let code = errno
            close(descriptor)
            switch code {
            case EBUSY: throw .grabbed(path: path)
            case ENOTTY, EINVAL: throw .notInputDevice(path: path)
            default: throw .failed(path: path, what: "grab (EVIOCGRAB)", reason: String(cString: strerror(code)))
            }
        }
        self.init(path: path, descriptor: descriptor)
    }

    /// `descriptor`, open on `path`, as the device (closed with it).
    init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// How a wait for input ended.
    enum Wait {
        /// These bytes came (one or more records, maybe part of one).
        case bytes(ArraySlice<UInt8>)
        /// Nothing came within the timeout.
        case timeout
        /// The device is gone (unplugged: ENODEV, or the end of a file).
        case gone(String)
    }

    /// Waits up to `timeout` (nil: without end; `wake` descriptor readable also ends it) for input records
    /// on `descriptor` (an input device's, or in tests a pipe's).
    static func read(_ descriptor: Int32, timeout: Duration?, wake: Int32, into buffer: inout [UInt8]) -> Wait {
        var fds = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        let milliseconds = timeout.map { Int32(clamping: max(0, $0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000)) } ?? -1
        let ready = poll(&fds, 2, milliseconds)
        if ready == 0 || (ready < 0 && errno == EINTR) || fds[0].revents == 0 { return .timeout }
        let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
        if count > 0 { return .bytes(buffer[0..<count]) }
        if count < 0, errno == EAGAIN || errno == EINTR { return .timeout }
        return .gone(count == 0 ? "end of input" : String(cString: strerror(errno)))
    }
}

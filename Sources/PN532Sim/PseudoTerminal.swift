@preconcurrency import Glibc

/// Why the simulator could not start.
public struct PN532SimulatorError: Error, Sendable, CustomStringConvertible {
    public let description: String

    init(_ step: String) {
        description = "cannot open a pseudo-terminal for the PN532 simulator: \(step) failed: \(String(cString: strerror(errno)))"
    }
}

/// A pseudo-terminal pair in raw mode. The simulator keeps its own descriptor
/// of the device side open, so a client closing it never leaves the chip's side
/// reading EIO, and the raw settings survive between clients.
struct PseudoTerminal: Sendable {
    let chipSide: Int32
    let deviceSide: Int32
    let devicePath: String

    /// `TIOCSPTLCK` (`_IOW('T', 0x31, int)`) and `TIOCGPTN` (`_IOR('T', 0x30, unsigned int)`).
    private static let setLock: UInt = 0x4004_5431
    private static let getNumber: UInt = 0x8004_5430

    init() throws(PN532SimulatorError) {
        // posix_openpt/grantpt/unlockpt/ptsname are what these steps are on Linux's devpts;
        // Swift's Glibc module does not export them, so the ioctls are spelled out.
        let chip = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        guard chip >= 0 else { throw PN532SimulatorError("open /dev/ptmx") }
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard ioctl(chip, Self.setLock, &unlock) == 0, ioctl(chip, Self.getNumber, &number) == 0 else {
            Glibc.close(chip)
            throw PN532SimulatorError("unlocking the pseudo-terminal")
        }
        let path = "/dev/pts/\(number)"
        let device = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK)
        guard device >= 0 else {
            Glibc.close(chip)
            throw PN532SimulatorError("open \(path)")
        }
        var settings = termios()
        tcgetattr(device, &settings)
        cfmakeraw(&settings)
        cfsetispeed(&settings, speed_t(B115200))
        cfsetospeed(&settings, speed_t(B115200))
        tcsetattr(device, TCSANOW, &settings)
        _ = fcntl(chip, F_SETFL, fcntl(chip, F_GETFL) | O_NONBLOCK)
        chipSide = chip
        deviceSide = device
        devicePath = path
    }

    /// Writes all of `bytes` to the host; gives up on bytes no client drains within a second.
    func send(_ bytes: [UInt8]) {
        var offset = 0
        var stalls = 0
        while offset < bytes.count, stalls < 10 {
            let written = bytes[offset...].withUnsafeBytes { write(chipSide, $0.baseAddress, $0.count) }
            if written > 0 {
                offset += written
            } else if written < 0, errno == EAGAIN || errno == EINTR {
                var entry = pollfd(fd: chipSide, events: Int16(POLLOUT), revents: 0)
                _ = poll(&entry, 1, 100)
                stalls += 1
            } else {
                return
            }
        }
    }

    /// Reads what the host has sent; empty when nothing is there.
    func receive() -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 1024)
        let count = buffer.withUnsafeMutableBytes { read(chipSide, $0.baseAddress, $0.count) }
        return count > 0 ? Array(buffer.prefix(count)) : []
    }

    func close() {
        Glibc.close(deviceSide)
        Glibc.close(chipSide)
    }
}

import Foundation
import Glibc
import Synchronization

/// A real pcscd for the PC/SC tests, with vsmartcard's vpcd driver as its only
/// reader driver: one vpcd reader of two slots, each slot a TCP port on which
/// the card side (the simulator's `VPCDCard`) connects. (The vpcd driver keeps
/// one connection per slot number, not per reader: a second vpcd reader in
/// the same pcscd takes the first one's slots over.) Tests lease a slot and
/// wait while both are in use, and a slot given back rests until pcscd has
/// seen its card leave.
///
/// pcsc-lite 1.9's pcscd always serves `/run/pcscd/pcscd.comm` (clients
/// honour `PCSCLITE_CSOCK_NAME`, the daemon does not), so it runs in a private
/// mount namespace (`unshare --mount`; `--user --map-root-user` when not root)
/// with a scratch directory bound over `/run/pcscd`: the tests' pcscd collides
/// with no other, and clients reach it through `environment`.
///
/// The shared daemon is never deinitialised, and `--auto-exit` does not end a
/// pcscd that still has readers (one was seen alive 40 minutes after `make test`).
/// So its life is tied to a pipe: the shell that starts it waits for end of file on
/// its standard input, whose write end only this process holds, and then stops it.
/// The kernel closes that end however this process ends — exit, crash or SIGKILL.
public final class PCSCDaemon: Sendable {
    /// One vpcd slot: the port its card connects to and the `device:` that picks it.
    public struct Slot: Sendable {
        public let port: UInt16
        public let device: String
    }

    /// The daemon every test of this process shares (libpcsclite reads the socket's
    /// name once per process); started on first use, with `PCSCLITE_CSOCK_NAME` set here.
    public static let shared: Result<PCSCDaemon, PCSCDaemonError> = Result { () throws(PCSCDaemonError) in
        let daemon = try PCSCDaemon()
        setenv("PCSCLITE_CSOCK_NAME", daemon.socket, 1)
        return daemon
    }

    public let directory: String
    public let socket: String
    public let basePort: UInt16
    private let process: Process
    /// The write end of the pipe whose end of file stops pcscd (see the type's comment).
    private let lifeline: Pipe
    /// Per slot: leased now, or the time from which it may be leased again.
    private let slots = Mutex<[SlotState]>([.free(from: .now), .free(from: .now)])

    private enum SlotState {
        case leased
        case free(from: ContinuousClock.Instant)
    }

    /// How long a slot given back rests: pcscd looks for vpcd's card every 400 ms,
    /// and a card that comes back sooner is taken for the one that left, ATR and all.
    static let rest: Duration = .milliseconds(500)

    /// For child processes: where the daemon's socket is.
    public var environment: [String: String] { ["PCSCLITE_CSOCK_NAME": socket] }

    public init() throws(PCSCDaemonError) {
        directory = NSTemporaryDirectory() + "pcscd-" + UUID().uuidString
        socket = directory + "/run/pcscd.comm"
        basePort = try Self.freePorts(count: 2)
        do {
            try FileManager.default.createDirectory(atPath: directory + "/run", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: directory + "/reader.conf.d", withIntermediateDirectories: true)
            try """
                FRIENDLYNAME "tagrouter-test"
                DEVICENAME   /dev/null:\(basePort)
                LIBPATH      /usr/lib/pcsc/drivers/serial/libifdvpcd.so
                CHANNELID    \(basePort)

                """.write(toFile: directory + "/reader.conf.d/vpcd", atomically: true, encoding: .utf8)
        } catch {
            throw PCSCDaemonError(description: "cannot prepare \(directory): \(error)")
        }
        let namespace = geteuid() == 0 ? ["--mount"] : ["--user", "--map-root-user", "--mount"]
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        process.arguments = namespace + [
            "sh", "-c",
            """
            mkdir -p /run/pcscd && mount --bind "$0/run" /run/pcscd || exit 1
            exec 3<&0
            pcscd --foreground --config "$0/reader.conf.d" </dev/null 3<&- & daemon=$!
            trap 'kill $daemon 2>/dev/null; wait $daemon; exit 0' TERM
            cat <&3 >/dev/null 3<&- & wait $!
            kill $daemon 2>/dev/null; wait $daemon
            """,
            directory,
        ]
        lifeline = Pipe()
        // Only this process may hold the lifeline's write end: no child started later inherits it.
        _ = fcntl(lifeline.fileHandleForWriting.fileDescriptor, F_SETFD, FD_CLOEXEC)
        process.standardInput = lifeline
        _ = FileManager.default.createFile(atPath: directory + "/pcscd.log", contents: nil)
        let log = FileHandle(forWritingAtPath: directory + "/pcscd.log")
        process.standardOutput = log
        process.standardError = log
        do {
            try process.run()
        } catch {
            throw PCSCDaemonError(description: "cannot start pcscd (apt install pcscd vsmartcard-vpcd): \(error)")
        }
        // pcscd loads its readers before it opens its socket (30 s: a loaded machine starts processes slowly).
        let deadline = ContinuousClock.now + .seconds(30)
        while process.isRunning, !FileManager.default.fileExists(atPath: socket), ContinuousClock.now < deadline { usleep(20_000) }
        guard process.isRunning, FileManager.default.fileExists(atPath: socket) else {
            let text = (try? String(contentsOfFile: directory + "/pcscd.log", encoding: .utf8)) ?? ""
            throw PCSCDaemonError(description: "pcscd did not start: \(text)")
        }
    }

    deinit { stop() }

    /// A slot no other test uses now, waiting while both are leased; give it back with `release`.
    public func leaseSlot() async throws -> Slot {
        while true {
            let free = slots.withLock { slots -> Int? in
                let now = ContinuousClock.now
                guard let index = slots.indices.first(where: { if case .free(let from) = slots[$0] { from <= now } else { false } })
                else { return nil }
                slots[index] = .leased
                return index
            }
            if let index = free { return Slot(port: basePort + UInt16(index), device: "pcsc:tagrouter-test * 0\(index)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Gives a leased slot back (its card must have hung up).
    public func release(_ slot: Slot) {
        slots.withLock { $0[Int(slot.port - basePort)] = .free(from: .now + Self.rest) }
    }

    /// Stops the daemon (SIGTERM) and removes its directory.
    public func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The first of `count` consecutive free 127.0.0.1 ports.
    private static func freePorts(count: Int) throws(PCSCDaemonError) -> UInt16 {
        for _ in 0..<50 {
            let base = UInt16.random(in: 20_000...60_000)
            if (0..<count).allSatisfy({ portIsFree(base + UInt16($0)) }) { return base }
        }
        throw PCSCDaemonError(description: "no \(count) consecutive free ports found")
    }

    private static func portIsFree(_ port: UInt16) -> Bool {
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = INADDR_ANY
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}

/// Why the tests' pcscd could not start.
public struct PCSCDaemonError: Error, Sendable, CustomStringConvertible {
    public let description: String
}
